import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { Checkpoint } from '@flow/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin, runJson } from './support/run-bin.js';

const LONG = `run-${'x'.repeat(508)}`; // 512 UTF-16 code units, the longest valid id
const ODD = '-odd-id';

describe('thread ids on the command line', () => {
  let dir: string;
  let store: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'flow-cli-ids-'));
    const path = join(dir, 'runs.db');
    store = `sqlite:${path}`;
    const cp = new SqliteCheckpointer(path);
    for (const thread of [LONG, ODD, 'short']) {
      await cp.put(new Checkpoint({ thread, step: 0, state: { thread }, next: ['a'] }));
    }
    await cp.close();
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('a 512-unit id is cut in the threads table and does not widen the other rows; --json has it whole', async () => {
    const { stdout } = await runBin(['threads', '--store', store]);
    const lines = stdout.trimEnd().split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(100);
    expect(lines.find((l) => l.startsWith('run-'))).toMatch(/^run-x+… +0 +running/);
    expect(lines.find((l) => l.startsWith('short'))!.length).toBeLessThan(100);
    const rows = (await runJson(['threads', '--json', '--store', store])) as { thread: string }[];
    expect(rows.map((r) => r.thread)).toContain(LONG);
  });

  it('an id that starts with "-" goes after "--"', async () => {
    expect(await runJson(['show', '--store', store, '--json', '--', ODD])).toMatchObject({ thread: ODD });
    expect(await runJson(['history', '--json', '--store', store, '--', ODD])).toHaveLength(1);
    const without = await runBin(['show', ODD, '--store', store]);
    expect(without.code).toBe(2);
  });

  it('each command that takes a thread says so in its help', async () => {
    for (const command of ['show', 'history', 'prune', 'delete']) {
      const { stdout } = await runBin([command, '--help']);
      expect(stdout).toContain('after "--"');
      expect(stdout).toMatch(new RegExp(`flow ${command}.* -- -odd-id`));
    }
  });
});
