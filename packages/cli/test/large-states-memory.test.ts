import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { Checkpoint } from '@flow/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from './support/run-bin.js';

const run = promisify(execFile);

// Eight checkpoints of a 20 MB state (20,000 distinct 1 KB messages). Holding the thread's history at
// once takes 160 MB of heap, more than the budget below.
const STEPS = 8;
const STATE_MB = 20;
// What the bin needs before it reads any state (its modules, the SQLite driver), plus three states:
// reading one through the protocol takes two (the stored text and the parsed value), so a command that
// holds one checkpoint at a time fits and one that holds two more does not.
const HEAP_MB = 30 + 3 * STATE_MB;

function bigState(step: number): { messages: string[] } {
  return { messages: Array.from({ length: STATE_MB * 1000 }, (_, i) => `${step}-${i}-`.padEnd(1000, 'x')) };
}

/** Runs the bin with V8's old generation capped at `HEAP_MB`: holding more states than that aborts it. */
async function flowInBudget(args: readonly string[], stdoutFile?: string) {
  const argv = [`--max-old-space-size=${HEAP_MB}`, BIN, ...args];
  const script = stdoutFile === undefined ? '' : ` > '${stdoutFile}'`;
  // A shell redirect writes the (large) output to a file instead of through this process.
  const { stdout } = await run('/bin/sh', ['-c', `exec "$0" "$@"${script}`, process.execPath, ...argv], {
    timeout: 120_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

describe(`commands on ${STEPS} checkpoints of ${STATE_MB} MB, in a heap of ${HEAP_MB} MB`, () => {
  let dir: string;
  let store: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'flow-cli-large-'));
    const path = join(dir, 'large.db');
    store = `sqlite:${path}`;
    const cp = new SqliteCheckpointer(path);
    for (let step = 0; step < STEPS; step++) {
      await cp.put(new Checkpoint({ thread: 'big', step, state: bigState(step), next: ['work'] }));
    }
    await cp.close();
  }, 120_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('history lists every step', async () => {
    const lines = (await flowInBudget(['history', 'big', '--store', store])).trimEnd().split('\n');
    expect(lines).toHaveLength(STEPS + 1);
    expect(lines[1]).toMatch(/^7\s+running\s+work\s/);
  }, 120_000);

  it('history --json writes every checkpoint with its state', async () => {
    const file = join(dir, 'history.json');
    await flowInBudget(['history', 'big', '--json', '--store', store], file);
    const rows = JSON.parse(await readFile(file, 'utf8')) as {
      step: number;
      state: { messages: string[] };
    }[];
    expect(rows.map((r) => r.step)).toEqual([7, 6, 5, 4, 3, 2, 1, 0]);
    expect(rows[3]!.state).toEqual(bigState(4));
  }, 120_000);

  it('copy copies every checkpoint, and a second copy skips them all after comparing', async () => {
    const to = `sqlite:${join(dir, 'copy.db')}`;
    expect(await flowInBudget(['copy', '--from', store, '--to', to])).toBe(
      `copied ${STEPS} checkpoints, skipped 0 already in the target (1 thread)\n`,
    );
    expect(await flowInBudget(['copy', '--from', store, '--to', to])).toBe(
      `copied 0 checkpoints, skipped ${STEPS} already in the target (1 thread)\n`,
    );
    const copy = new SqliteCheckpointer(join(dir, 'copy.db'));
    expect((await copy.get('big', 5))?.state).toEqual(bigState(5));
    await copy.close();
  }, 240_000);
});
