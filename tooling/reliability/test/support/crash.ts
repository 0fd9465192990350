import { copyFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Checkpointer } from '@flow/core';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { crashState } from '../fixtures/crash-states.mjs';
import { type Child, randomInt } from './children.js';

/** Waits for a line, failing clearly (with the child's stderr) instead of running into the test timeout. */
export async function expectLine(child: Child, pattern: RegExp, ms = 15_000): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no line ${pattern} in ${ms} ms: ${child.stderr()}`)), ms);
  });
  try {
    return await Promise.race([child.line(pattern), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Kills `child` with SIGKILL at a random moment: sometimes while node is still starting or the storage is
 * being set up, sometimes right after setup, mostly while it writes (after `busy` was printed). Resolves
 * `true` when it was killed, `false` when it finished first (exit code 0).
 */
export async function killAtRandom(child: Child, busy: RegExp): Promise<boolean> {
  const roll = Math.random();
  const ended = child.exited.then(() => 'ended' as const);
  const wait = async () => {
    if (roll < 0.15) await sleep(randomInt(0, 80));
    else if (roll < 0.3) await expectLine(child, /^ready$/).then(() => sleep(randomInt(0, 3)));
    else await expectLine(child, busy).then(() => sleep(randomInt(0, 30)));
    return 'kill' as const;
  };
  if ((await Promise.race([wait(), ended])) === 'kill') child.process.kill('SIGKILL');
  const { code, signal } = await child.exited;
  if (signal === 'SIGKILL') return true;
  if (code !== 0) throw new Error(`the child failed on its own (exit ${code}): ${child.stderr()}`);
  return false;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The highest step per thread the child printed `ok <thread> <step>` for. */
export function acknowledged(lines: readonly string[], into: Map<string, number>): void {
  for (const line of lines) {
    const m = /^ok (.+) (\d+)$/.exec(line);
    if (m) into.set(m[1]!, Math.max(into.get(m[1]!) ?? -1, Number(m[2])));
  }
}

/** How many acknowledged steps are missing from storage (must be 0): one get per thread. */
export async function lostAcknowledged(
  cp: Checkpointer,
  acked: ReadonlyMap<string, number>,
): Promise<number> {
  let lost = 0;
  for (const [thread, step] of acked) {
    const latest = (await cp.get(thread))?.step ?? -1;
    if (latest < step) lost += step - latest;
  }
  return lost;
}

/**
 * The whole store after the crashes: every checkpoint parses, each thread's steps run from 0 to its latest
 * without a gap, each was written once (revision 1) and holds exactly the state its writer derived from
 * (thread, step), and listThreads agrees with the step files. Resolves with the number of checkpoints.
 */
export async function verifyWrites(cp: Checkpointer, threads: readonly string[]): Promise<number> {
  let total = 0;
  for (const thread of threads) {
    const list = await cp.list(thread);
    const steps = list.map((c) => c.step);
    expect(steps, `steps of ${thread}`).toEqual(steps.map((_, i) => steps.length - 1 - i));
    expect(
      list.filter((c) => c.revision !== 1).map((c) => c.step),
      `rewritten steps of ${thread}`,
    ).toEqual([]);
    for (const c of list)
      expect(c.state, `state of ${thread} step ${c.step}`).toEqual(crashState(thread, c.step));
    total += list.length;
  }
  const infos = await cp.listThreads();
  const latest = await Promise.all(threads.map(async (t) => (await cp.get(t))?.step));
  expect(infos.map((i) => [i.thread, i.latestStep]).sort()).toEqual(
    threads.flatMap((t, i) => (latest[i] === undefined ? [] : [[t, latest[i]]])).sort(),
  );
  return total;
}

/** Names of the step files and of the leftover temp files under a file store's thread directories. */
export function fileStoreEntries(root: string): { steps: number; temps: number } {
  let steps = 0;
  let temps = 0;
  for (const dir of readdirSync(join(root, 'threads'))) {
    if (dir.startsWith('.')) continue;
    for (const name of readdirSync(join(root, 'threads', dir))) {
      if (/^\d{10}\.json$/.test(name)) steps++;
      else if (name.startsWith('.tmp-')) temps++;
    }
  }
  return { steps, temps };
}

/**
 * Leaves a temp file that holds a complete checkpoint in every thread directory (as a crash between
 * write and rename would), so the checks after it prove that no temp file is read as a checkpoint.
 */
export function plantTemps(root: string): number {
  let planted = 0;
  for (const dir of readdirSync(join(root, 'threads'))) {
    if (dir.startsWith('.')) continue;
    const path = join(root, 'threads', dir);
    const step = readdirSync(path)
      .filter((n) => /^\d{10}\.json$/.test(n))
      .sort()
      .at(-1);
    if (step === undefined) continue;
    copyFileSync(join(path, step), join(path, `.tmp-${process.pid}-planted${planted++}`));
  }
  return planted;
}

/** SQLite's own check of the database file after the crashes. */
export function sqliteIntegrity(path: string): string {
  const db = new Database(path);
  try {
    return String(db.pragma('integrity_check', { simple: true }));
  } finally {
    db.close();
  }
}
