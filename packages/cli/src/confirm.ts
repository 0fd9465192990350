import { createInterface } from 'node:readline/promises';
import type { CliIo } from './io.js';

/**
 * Asks a yes/no question on the terminal; only `y` or `yes` (any case) is a yes.
 * End of input (Ctrl-D) counts as no.
 */
export async function confirm(io: CliIo, question: string): Promise<boolean> {
  const rl = createInterface({
    input: io.stdin,
    output: io.stderr as NodeJS.WritableStream,
    terminal: false,
  });
  try {
    const closed = new Promise<string>((resolve) => rl.once('close', () => resolve('')));
    io.stderr.write(`${question} [y/N] `);
    const answer = await Promise.race([rl.question('').catch(() => ''), closed]);
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    rl.close();
  }
}
