import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDbPath } from './support/databases.js';

const CHILD = fileURLToPath(new URL('./fixtures/setup-child.mjs', import.meta.url));
const PROCESSES = 8;
const ROUNDS = 20;

describe('setup() from several processes at once', () => {
  // Switching a fresh file to WAL can answer SQLITE_BUSY at once instead of waiting on the busy handler;
  // setup must wait it out like any other lock, so every process succeeds on every fresh file.
  it(`${PROCESSES} processes set up the same fresh file, ${ROUNDS} times: every setup succeeds`, {
    timeout: 90_000,
  }, async () => {
    const children = Array.from({ length: PROCESSES }, () =>
      spawn(process.execPath, [CHILD], { stdio: ['pipe', 'pipe', 'inherit'] }),
    );
    const lines = children.map((c) => createInterface({ input: c.stdout! })[Symbol.asyncIterator]());
    const next = async (i: number) => (await lines[i]!.next()).value as string;
    try {
      for (let i = 0; i < PROCESSES; i++) expect(await next(i)).toBe('ready');
      const failures: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const path = tempDbPath();
        for (const child of children) child.stdin!.write(`go ${path}\n`);
        const answers = await Promise.all(children.map((_, i) => next(i)));
        failures.push(...answers.filter((a) => a !== 'ok'));
      }
      expect(failures).toEqual([]);
    } finally {
      for (const child of children) child.stdin!.end();
    }
  });
});
