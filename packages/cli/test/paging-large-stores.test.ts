import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { Checkpoint } from '@flow/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_SIZE } from '../src/paging.js';
import { runBin, runJson } from './support/run-bin.js';

// More than two pages of threads, and a thread with more than two pages of steps.
const THREADS = PAGE_SIZE * 2 + 50;
const STEPS = PAGE_SIZE * 2 + 7;
const id = (i: number) => `t-${String(i).padStart(4, '0')}`;

describe('stores larger than one page', () => {
  let dir: string;
  let store: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'flow-cli-paging-'));
    const path = join(dir, 'big.db');
    store = `sqlite:${path}`;
    const cp = new SqliteCheckpointer(path);
    for (let i = 0; i < THREADS; i++) await cp.put(new Checkpoint({ thread: id(i), step: 0, state: { i } }));
    for (let step = 1; step < STEPS; step++) {
      await cp.put(new Checkpoint({ thread: id(0), step, state: { step }, next: ['work'] }));
    }
    await cp.close();
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('threads pages through every thread, and --limit stops across a page boundary', async () => {
    const all = (await runJson(['threads', '--json', '--store', store])) as { thread: string }[];
    expect(all.map((t) => t.thread)).toEqual(Array.from({ length: THREADS }, (_, i) => id(i)));
    const some = (await runJson([
      'threads',
      '--limit',
      String(PAGE_SIZE + 1),
      '--json',
      '--store',
      store,
    ])) as {
      thread: string;
    }[];
    expect(some.map((t) => t.thread)).toEqual(Array.from({ length: PAGE_SIZE + 1 }, (_, i) => id(i)));
    const table = await runBin(['threads', '--store', store]);
    expect(table.stdout.trimEnd().split('\n')).toHaveLength(THREADS + 1);
  });

  it('history pages through every step, newest first', async () => {
    const rows = (await runJson(['history', id(0), '--json', '--store', store])) as { step: number }[];
    expect(rows.map((r) => r.step)).toEqual(Array.from({ length: STEPS }, (_, i) => STEPS - 1 - i));
  });

  it('copy pages through every thread and step', async () => {
    const to = `sqlite:${join(dir, 'copy.db')}`;
    const result = await runBin(['copy', '--from', store, '--to', to]);
    const total = THREADS + STEPS - 1;
    expect(result).toEqual({
      code: 0,
      stdout: `copied ${total} checkpoints, skipped 0 already in the target (${THREADS} threads)\n`,
      stderr: '',
    });
  });
});
