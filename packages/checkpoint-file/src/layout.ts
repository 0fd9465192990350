import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { threadName } from './thread-name.js';

/**
 * Where everything lives under the root:
 *
 *     <root>/threads/<thread-name>/0000000042.json   one file per step
 *     <root>/threads/<thread-name>/thread.json       the thread's summary (for listThreads)
 *     <root>/threads/<thread-name>/lease.json        the thread's lease, if one was taken
 *     <root>/threads/<thread-name>/writes/0000000042/<hash>.json   one file per write of step 42
 *     <root>/threads/<thread-name>/chunks/<hex of id>.json          one file per chunk of linear state
 *     <root>/threads/<thread-name>/.stage-0000000042-<random>      a put's writes, until published
 *     <root>/threads/<thread-name>/.tmp-*            a write in progress (or left by a crash)
 *     <root>/threads/.trash-*                        a thread being deleted
 *     <root>/locks/<thread-name>.lock                a per-thread lock, present only while held
 */
export class Layout {
  readonly threads: string;
  readonly locks: string;

  constructor(readonly root: string) {
    this.threads = join(root, 'threads');
    this.locks = join(root, 'locks');
  }

  threadDir(thread: string): string {
    return join(this.threads, threadName(thread));
  }

  stepFile(thread: string, step: number): string {
    return join(this.threadDir(thread), stepFileName(step));
  }

  summaryFile(threadDir: string): string {
    return join(threadDir, SUMMARY_FILE);
  }

  lockFile(thread: string): string {
    return join(this.locks, `${threadName(thread)}.lock`);
  }
}

/** The summary file's name inside a thread directory. */
export const SUMMARY_FILE = 'thread.json';
/** Prefix of temp files; they start with `.`, so they never look like a step file or a thread. */
export const TEMP_PREFIX = '.tmp-';
/** The lease file's name inside a thread directory. */
export const LEASE_FILE = 'lease.json';
/** The directory of a thread's writes, one subdirectory per step. */
export const WRITES_DIR = 'writes';
/** The directory of a thread's chunks (parts of linear states that steps share). */
export const CHUNKS_DIR = 'chunks';

/**
 * `k3F` → `6b3346.json`: a chunk file's name, the id's bytes in lowercase hex, so ids differing only in case
 * stay apart on case-insensitive file systems, and no id (`.`, `..`) is a special name.
 */
export function chunkFileName(id: string): string {
  return `${Buffer.from(id, 'utf8').toString('hex')}.json`;
}

/** Prefix of staging directories (writes of a put with writes, before they are published). */
export const STAGE_PREFIX = '.stage-';

const STAGE_NAME = /^\.stage-(\d{10})-[0-9a-f]{12}$/;

/** A staging directory's name for `step`: the step first, so recovery and prune know whose it is. */
export function stageName(step: number): string {
  return `${STAGE_PREFIX}${String(step).padStart(10, '0')}-${randomBytes(6).toString('hex')}`;
}

/** Whether `name` is a staging directory's name (so a name read from a file is a safe path component). */
export function isStageName(name: unknown): name is string {
  return typeof name === 'string' && STAGE_NAME.test(name);
}

/** The step a staging directory's name belongs to, or `undefined` for anything else. */
export function stageStepOf(name: string): number | undefined {
  const m = STAGE_NAME.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** `writes/0000000042`: the directory of one step's writes, inside a thread directory. */
export function stepWritesDir(threadDir: string, step: number): string {
  return join(threadDir, WRITES_DIR, String(step).padStart(10, '0'));
}

/** Prefix of thread directories renamed away by `deleteThread` before they are removed. */
export const TRASH_PREFIX = '.trash-';

const STEP_FILE = /^(\d{10})\.json$/;

/** `42` → `0000000042.json`: ten digits hold every step up to 2^31 − 1 and sort in step order. */
export function stepFileName(step: number): string {
  return `${String(step).padStart(10, '0')}.json`;
}

/** The step a directory entry holds, or `undefined` for anything else (temp files, the summary...). */
export function parseStepFileName(name: string): number | undefined {
  const m = STEP_FILE.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** The steps stored in a thread directory's listing, highest first. */
export function stepsOf(names: readonly string[]): number[] {
  const steps: number[] = [];
  for (const name of names) {
    const step = parseStepFileName(name);
    if (step !== undefined) steps.push(step);
  }
  return steps.sort((a, b) => b - a);
}

/** A unique name for a temp file or trash directory, with the pid so a person can tell whose it was. */
export function uniqueName(prefix: string): string {
  return `${prefix}${process.pid}-${randomBytes(6).toString('hex')}`;
}
