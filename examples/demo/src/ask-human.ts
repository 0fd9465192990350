import { createInterface } from 'node:readline/promises';
import type { DemoArgs } from './args.js';

/** The human's answer and where it came from, for the output. */
export interface HumanAnswer {
  answer: 'approve' | 'reject';
  source: string;
}

/** A flag wins; else a prompt when stdin is a terminal; else `reject` (never publish unasked). */
export async function askHuman(args: DemoArgs): Promise<HumanAnswer> {
  if (args.decision !== undefined) return { answer: args.decision, source: `the --${args.decision} flag` };
  if (!process.stdin.isTTY) {
    return {
      answer: 'reject',
      source: 'the default: stdin is not a terminal and no --approve/--reject was given, so the demo rejects',
    };
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    for (;;) {
      const reply = (await rl.question('   Publish it? [y/n] ')).trim().toLowerCase();
      if (reply === 'y' || reply === 'yes') return { answer: 'approve', source: 'you, at the terminal' };
      if (reply === 'n' || reply === 'no') return { answer: 'reject', source: 'you, at the terminal' };
    }
  } finally {
    rl.close();
  }
}
