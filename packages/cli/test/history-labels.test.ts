import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { Checkpoint } from '@flow/core';
import { END, START, StateGraph } from '@flow/graph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from './support/run-bin.js';

// A run as the engine writes it: a resume claims the run by writing the next step with the frontier (and,
// unless patched, the state) of the step before it, before it runs anything.
const STEPS = [
  { state: { n: 0 }, next: ['work'] },
  { state: { n: 1 }, next: ['review'], interrupted: true, interruptNode: 'review' },
  { state: { n: 1 }, next: ['review'] }, // the claim of the answer
  { state: { n: 2 }, next: ['work'] },
  { state: { n: 2 }, next: ['work'] }, // a recovery's claim: same state, same frontier
  { state: { n: 3 }, next: ['work'] }, // a loop step: same frontier, new state
  { state: { n: 3 }, next: [] },
];

describe('flow history', () => {
  let dir: string;
  let store: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'flow-cli-history-'));
    const path = join(dir, 'runs.db');
    store = `sqlite:${path}`;
    const cp = new SqliteCheckpointer(path);
    for (const [step, fields] of STEPS.entries())
      await cp.put(new Checkpoint({ thread: 'run', step, ...fields }));
    // A failed run as the engine records it (the failure on a step of its own, with the state and frontier
    // of the step before it), then resumed once the node works.
    let fail = true;
    const app = new StateGraph<{ ok?: boolean }>({})
      .addNode('work', () => {
        if (fail) throw new Error('the API is down');
        return { ok: true };
      })
      .addEdge(START, 'work')
      .addEdge('work', END)
      .compile({ checkpointer: cp });
    await expect(app.invoke({}, { thread: 'failed-run' })).rejects.toThrow(/the API is down/);
    fail = false;
    await app.resume('failed-run');
    await cp.close();
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('marks resume claims, after an interrupt and after a recovery, and nothing else', async () => {
    const { code, stdout } = await runBin(['history', 'run', '--store', store]);
    expect(code).toBe(0);
    const statuses = stdout
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => /^\d+\s+(\S+(?: claim)?)/.exec(line)?.[1]);
    expect(statuses).toEqual([
      'done',
      'running',
      'resume claim',
      'running',
      'resume claim',
      'interrupted',
      'running',
    ]);
  });

  it('labels the step that records a failure failed, not a resume claim', async () => {
    const { code, stdout } = await runBin(['history', 'failed-run', '--store', store]);
    expect(code).toBe(0);
    const statuses = stdout
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => /^\d+\s+(\S+(?: claim)?)/.exec(line)?.[1]);
    expect(statuses).toEqual(['done', 'resume claim', 'failed', 'running']);
  });

  it('--json keeps the checkpoints as they are stored', async () => {
    const { stdout } = await runBin(['history', 'run', '--json', '--store', store]);
    const rows = JSON.parse(stdout) as { step: number; interrupted: boolean; done: boolean }[];
    expect(rows.map((r) => r.step)).toEqual([6, 5, 4, 3, 2, 1, 0]);
    expect(rows[4]).toMatchObject({ step: 2, interrupted: false, done: false });
  });
});
