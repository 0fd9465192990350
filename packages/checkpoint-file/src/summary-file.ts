import { readFile } from 'node:fs/promises';
import { type ThreadInfo, threadInfoOf } from '@flow/core';
import type { StepHeader } from './step-file.js';

/**
 * The thread summary (`thread.json`): the latest step's status without its state, so `listThreads` reads
 * one small file per thread. It is a cache of the step files, rewritten under the thread lock by every put
 * that raises (or repeats) the latest step. When it is missing or unreadable (a crash between the step
 * rename and its own), readers fall back to the latest step file's header.
 */
export function encodeSummary(info: ThreadInfo): Buffer {
  return Buffer.from(`${JSON.stringify({ format: 1, ...info })}\n`);
}

/** The summary a step header implies when that step is the thread's latest. */
export function summaryOf(
  h: Pick<StepHeader, 'thread' | 'step' | 'next' | 'interrupted' | 'ts' | 'error'>,
): ThreadInfo {
  return threadInfoOf({
    thread: h.thread,
    step: h.step,
    next: h.next,
    interrupted: h.interrupted,
    error: h.error ?? null,
    ts: h.ts,
  });
}

const UNFINISHED: readonly string[] = [''];

/** Reads a summary file; `undefined` when it is missing or unreadable, which callers repair from the steps. */
export async function readSummary(path: string): Promise<ThreadInfo | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const s = JSON.parse(text) as ThreadInfo & { format?: number };
    const ok =
      s.format === 1 &&
      typeof s.thread === 'string' &&
      Number.isSafeInteger(s.latestStep) &&
      typeof s.interrupted === 'boolean' &&
      typeof s.done === 'boolean' &&
      typeof s.ts === 'string' &&
      // A summary written before runs recorded errors has none.
      (s.error === undefined ||
        s.error === null ||
        (typeof s.error === 'object' && typeof s.error.message === 'string'));
    if (!ok) return undefined;
    // The summary keeps `done`, not the frontier: an unfinished run stands in with a one-node frontier.
    return threadInfoOf({
      thread: s.thread,
      step: s.latestStep,
      next: s.done ? [] : UNFINISHED,
      interrupted: s.interrupted,
      error: s.error ?? null,
      ts: s.ts,
    });
  } catch {
    return undefined;
  }
}
