import { createInterface } from 'node:readline';
import type { CliIo } from './io.js';

/**
 * Asks a yes/no question on the terminal (on stderr, so stdout stays clean); only `y` or `yes`
 * (any case) is a yes. End of input (Ctrl-D) counts as no.
 */
export async function confirm(io: CliIo, question: string): Promise<boolean> {
  const rl = createInterface({ input: io.stdin, terminal: false });
  try {
    io.stderr.write(`${question} [y/N] `);
    // The first line, or '' when input ends first. ('close' can fire before a question() promise settles.)
    const answer = await new Promise<string>((resolve) => {
      rl.once('line', resolve);
      rl.once('close', () => resolve(''));
    });
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    rl.close();
  }
}
