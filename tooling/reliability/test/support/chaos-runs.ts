import { readFileSync } from 'node:fs';
import { MemoryCheckpointer } from '@flow/checkpoint-memory';
import type { Checkpointer } from '@flow/core';
import { expect } from 'vitest';
import { CHAOS_INPUT, chaosGraph } from '../fixtures/chaos-graph.mjs';
import { sleep } from './crash.js';
import type { Acknowledged } from './worker-fleet.js';

/** The run ids of a chaos test: a `/` in each, so the file layout is exercised too. */
export function runIds(label: string, runs: number): string[] {
  return Array.from({ length: runs }, (_, i) => `${label}/${String(i).padStart(3, '0')}`);
}

/** What an uninterrupted run of `thread` ends with: enqueued, then resumed once in one process. */
export async function uninterrupted(thread: string): Promise<{ state: unknown; checkpoints: number }> {
  const cp = new MemoryCheckpointer();
  const app = chaosGraph(cp);
  await app.enqueue(CHAOS_INPUT, { thread });
  const result = await app.resume(thread);
  const checkpoints = (await cp.list(thread)).length;
  await cp.close();
  return { state: result.state, checkpoints };
}

/**
 * Enqueues the runs one by one, spread over `overMs`, as an application hands work to its workers: the
 * workers stay busy (and get killed mid-run) for that long. A store that cannot be reached (its server is
 * being restarted) is tried again; a first checkpoint that was written by an attempt that failed counts.
 */
export async function enqueuePaced(
  cp: Checkpointer,
  threads: readonly string[],
  leaseMs: number,
  overMs: number,
): Promise<void> {
  const app = chaosGraph(cp, { leaseMs });
  const started = Date.now();
  for (const [i, thread] of threads.entries()) {
    const wait = started + (overMs * i) / threads.length - Date.now();
    if (wait > 0) await sleep(wait);
    for (;;) {
      try {
        await app.enqueue(CHAOS_INPUT, { thread });
        break;
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code !== 'STORAGE' && code !== 'THREAD_BUSY') throw error;
        if (code === 'THREAD_BUSY' && (await cp.get(thread).catch(() => undefined)) !== undefined) break;
        await sleep(100);
      }
    }
  }
}

/**
 * Whether every run has finished. A failed run fails the test at once (with its error); a store that
 * cannot be reached (its server is being restarted) counts as not finished yet.
 */
export async function allDone(cp: Checkpointer, runs: number): Promise<boolean> {
  try {
    const failed = await cp.listThreads({ status: 'failed' });
    if (failed.length > 0) throw new Error(`runs failed: ${JSON.stringify(failed.slice(0, 3))}`);
    return (await cp.listThreads({ status: 'done' })).length === runs;
  } catch (error) {
    if ((error as { code?: string }).code === 'STORAGE') return false;
    throw error;
  }
}

/** The unfinished runs, with their latest step and lease: what a test that timed out says. */
export async function unfinished(cp: Checkpointer): Promise<string> {
  const running = await cp.listThreads({ status: 'running' });
  const shown = await Promise.all(
    running
      .slice(0, 5)
      .map(
        async (t) =>
          `${t.thread} at step ${t.latestStep}, lease ${JSON.stringify(await cp.getLease(t.thread))}`,
      ),
  );
  return `${running.length} running: ${shown.join('; ')}`;
}

/**
 * Every run finished exactly once with the state of an uninterrupted run: steps 0…latest without a gap,
 * each written once (revision 1), one `done` checkpoint and it is the latest. Resolves with the number of
 * recoveries: each resume writes one claim step, so a run resumed k times has k − 1 more checkpoints than
 * the uninterrupted one (which was resumed once, from its enqueued step).
 */
export async function verifyRuns(cp: Checkpointer, threads: readonly string[]): Promise<number> {
  let recoveries = 0;
  for (const thread of threads) {
    const expected = await uninterrupted(thread);
    const history = await cp.list(thread);
    const steps = history.map((c) => c.step);
    expect(steps, `steps of ${thread}`).toEqual(steps.map((_, i) => steps.length - 1 - i));
    expect(
      history.filter((c) => c.revision !== 1).map((c) => c.step),
      `steps of ${thread} written twice`,
    ).toEqual([]);
    expect(
      history.filter((c) => c.done).map((c) => c.step),
      `done checkpoints of ${thread}`,
    ).toEqual([history[0]?.step]);
    expect(history[0]?.state, `final state of ${thread}`).toEqual(expected.state);
    expect(history.length, `checkpoints of ${thread}`).toBeGreaterThanOrEqual(expected.checkpoints);
    recoveries += history.length - expected.checkpoints;
  }
  return recoveries;
}

/**
 * How many acknowledged writes the store lacks (must be 0): every checkpoint a worker saw `put` resolve for
 * is there, written once and by that very put (same stored `ts`: a lost step written again later would
 * differ), and every per-step write it saw `putWrites` resolve for is stored at its step.
 */
export async function lostAcknowledged(cp: Checkpointer, acked: Acknowledged): Promise<number> {
  let lost = 0;
  for (const [thread, steps] of acked.puts) {
    const stored = new Map((await cp.list(thread)).map((c) => [c.step, c]));
    for (const [step, ts] of steps) {
      const found = stored.get(step);
      if (found?.revision !== 1 || found.ts !== ts) lost++;
    }
  }
  for (const [thread, steps] of acked.writes) {
    for (const [step, keys] of steps) {
      const stored = new Set((await cp.getWrites(thread, step)).map((w) => `${w.node}/${w.key}`));
      for (const key of keys) if (!stored.has(key)) lost++;
    }
  }
  return lost;
}

/** What the task log (see chaos-graph.mjs) shows about the side effect of each run. */
export interface TaskCalls {
  /** `fn` calls in all. */
  calls: number;
  /** Calls after an earlier call of the same run whose value was never stored (at-least-once, allowed). */
  repeatedBeforeStored: number;
  /** Re-runs of `charge` that got the stored value back without calling `fn`. */
  replayed: number;
}

/**
 * Checks the task log: every run's `fn` was called at least once, and never after a `ctx.task` of that run
 * had resolved (its value stored).
 */
export function checkTaskLog(path: string, threads: readonly string[]): TaskCalls {
  const events = new Map<string, string[]>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const m = /^(call|resolved) (".*")$/.exec(line);
    if (!m) continue;
    const thread = JSON.parse(m[2]!) as string;
    events.set(thread, [...(events.get(thread) ?? []), m[1]!]);
  }
  const result: TaskCalls = { calls: 0, repeatedBeforeStored: 0, replayed: 0 };
  const calledAfterStored: string[] = [];
  for (const thread of threads) {
    const seq = events.get(thread) ?? [];
    const firstResolved = seq.indexOf('resolved');
    expect(firstResolved, `a resolved task in ${thread}: ${seq}`).toBeGreaterThan(0);
    if (seq.slice(firstResolved).includes('call')) calledAfterStored.push(`${thread}: ${seq.join(' ')}`);
    const calls = seq.filter((e) => e === 'call').length;
    result.calls += calls;
    result.repeatedBeforeStored += Math.max(0, seq.slice(0, firstResolved).length - 1);
    result.replayed += seq.filter((e) => e === 'resolved').length - 1;
  }
  expect(calledAfterStored, 'task fn called again after its value was stored').toEqual([]);
  return result;
}
