import { type Checkpoint, type Checkpointer, isFlowError } from '@flow/core';
import type { Context } from '../context.js';
import { CliError } from '../errors.js';
import { threadLabel } from '../format/label.js';
import { checkpointPages, threadPages } from '../paging.js';
import type { KeyObserver } from '../store/encryption.js';
import { ProgressLine } from './progress.js';
import { plural } from './prune.js';
import { threadNotFound } from './show.js';

/** Options of `flow rekey`. */
export interface RekeyOptions {
  /** Rekey this thread; without it, every thread (`--all`). */
  thread?: string;
  json?: boolean;
}

/** What a rekey did. */
export interface RekeyResult {
  /** The key every rewritten checkpoint is now under. */
  key: string;
  threads: number;
  /** Checkpoints rewritten under the current key (each one's revision went up by 1). */
  rewritten: number;
  /** Checkpoints already under the current key: left untouched. */
  current: number;
  /** Checkpoints that changed while being rekeyed: left as they are (run the command again). */
  conflicts: number;
  /** Per-step writes under another key or in plaintext: the store keeps the first value of a write. */
  staleWrites: number;
}

/** Whether every value of `cp` was read under `key`. */
function isUnder(observer: KeyObserver, cp: Checkpoint, key: string): boolean {
  const at = { thread: cp.thread, step: cp.step };
  return (
    observer.keyAt({ ...at, field: 'state' }) === key &&
    observer.keyAt({ ...at, field: 'interruptPayload' }) === key
  );
}

/**
 * Rewrites one checkpoint under the current key, only if nobody changed it since it was read
 * (`ifRevision`): `ts`, `meta`, `error` and every other field stay as they are; the revision goes up by 1.
 */
async function rewrite(store: Checkpointer, cp: Checkpoint): Promise<boolean> {
  try {
    await store.put(cp, { ifRevision: cp.revision });
    return true;
  } catch (error) {
    if (isFlowError(error, 'CHECKPOINT_CONFLICT')) return false;
    throw error;
  }
}

/** How many of the writes stored for (thread, step) are not under `key`: under another key, and in plaintext. */
async function staleWritesAt(
  store: Checkpointer,
  observer: KeyObserver,
  cp: Checkpoint,
  key: string,
): Promise<{ stale: number; plaintext: number }> {
  let writes: Awaited<ReturnType<Checkpointer['getWrites']>>;
  try {
    writes = await store.getWrites(cp.thread, cp.step);
  } catch (error) {
    // A backend that does not store per-step writes yet has none to count.
    if (isFlowError(error, 'STORAGE') && /is not supported by this backend$/.test(error.message)) {
      return { stale: 0, plaintext: 0 };
    }
    throw error;
  }
  const at = { thread: cp.thread, step: cp.step, field: 'write' as const };
  const keys = writes.map((w) => observer.keyAt({ ...at, node: w.node, key: w.key }));
  return { stale: keys.filter((k) => k !== key).length, plaintext: keys.filter((k) => k === null).length };
}

async function* threadsToRekey(store: Checkpointer, only: string | undefined): AsyncGenerator<string> {
  if (only !== undefined) {
    yield only;
    return;
  }
  for await (const page of threadPages(store, {})) for (const info of page) yield info.thread;
}

/**
 * `flow rekey`: rewrites every checkpoint of a thread (or of every thread) that is not under the current key
 * of `FLOW_KEYS` — older keys' records and plaintext ones — so older keys can then be retired. Checkpoints
 * already under the current key are left alone, so a second run rewrites nothing.
 */
export async function rekeyCommand(
  ctx: Context,
  store: Checkpointer,
  observer: KeyObserver,
  key: string,
  opts: RekeyOptions,
): Promise<RekeyResult> {
  const result: RekeyResult = { key, threads: 0, rewritten: 0, current: 0, conflicts: 0, staleWrites: 0 };
  /** Of `staleWrites`, those in plaintext: read only with FLOW_ALLOW_PLAINTEXT once the store is encrypted. */
  let plaintextWrites = 0;
  const progress = new ProgressLine(ctx.io.stderr);
  const show = () =>
    progress.update(`rekeying: ${plural(result.threads, 'thread')}, ${result.rewritten} rewritten`);
  try {
    for await (const thread of threadsToRekey(store, opts.thread)) {
      let seen = false;
      for await (const page of checkpointPages(store, thread)) {
        seen = true;
        for (const cp of page) {
          const writes = await staleWritesAt(store, observer, cp, key);
          result.staleWrites += writes.stale;
          plaintextWrites += writes.plaintext;
          if (isUnder(observer, cp, key)) result.current++;
          else if (await rewrite(store, cp)) result.rewritten++;
          else {
            result.conflicts++;
            progress.clear();
            ctx.note(
              `warning: thread ${threadLabel(thread)} step ${cp.step} changed while rekeying; left as it is`,
            );
          }
        }
        observer.clear();
        show();
      }
      if (!seen && opts.thread !== undefined) throw threadNotFound(thread);
      // A rewritten step's state is stored anew: the chunks of its old one (a large state's parts, under the
      // old key or in plaintext) are referenced no more. A prune that removes no checkpoint (no step is below
      // 0) drops them, so nothing readable with a retired key, or in the clear, stays behind.
      if (seen) await store.prune(thread, { beforeStep: 0 });
      result.threads++;
    }
  } finally {
    progress.clear();
  }
  if (opts.json === true) ctx.print(JSON.stringify(result));
  else {
    ctx.print(
      `rekeyed ${plural(result.threads, 'thread')} under key ${JSON.stringify(key)}: ` +
        `${result.rewritten} rewritten, ${result.current} already current`,
    );
    const underOlderKeys = result.staleWrites - plaintextWrites;
    const stay = (n: number) => `${plural(n, 'per-step write')} stay${n === 1 ? 's' : ''}`;
    if (underOlderKeys > 0) {
      ctx.note(
        `note: ${stay(underOlderKeys)} under older keys ` +
          '(a stored write keeps its first value); keep those keys in FLOW_KEYS until the steps are pruned',
      );
    }
    if (plaintextWrites > 0) {
      ctx.note(
        `note: ${stay(plaintextWrites)} in plaintext (a stored write keeps its first value); ` +
          'they read only with FLOW_ALLOW_PLAINTEXT=1 until the steps are pruned',
      );
    }
  }
  if (result.conflicts > 0) {
    throw new CliError(
      `${plural(result.conflicts, 'checkpoint')} changed while rekeying: run flow rekey again`,
    );
  }
  return result;
}
