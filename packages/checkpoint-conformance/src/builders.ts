import { Checkpoint, type Checkpointer, type CheckpointInit, type ThreadInfo } from '@flow/core';

/** A checkpoint for `thread` at `step`, with `{ step }` as state unless `fields` says otherwise. */
export function checkpoint(thread: string, step: number, fields: Partial<CheckpointInit> = {}): Checkpoint {
  return new Checkpoint({ thread, step, state: { step }, ...fields });
}

/** Puts one checkpoint per step, in the given order, one after the other. */
export async function putSteps(
  cp: Checkpointer,
  thread: string,
  steps: readonly number[],
  fields: Partial<CheckpointInit> = {},
): Promise<void> {
  for (const step of steps) await cp.put(checkpoint(thread, step, fields));
}

/** A fixed instant `seconds` after 2024-01-01T00:00:00Z, in `toISOString()` form: explicit ts, no sleeping. */
export function at(seconds: number): string {
  return new Date(Date.UTC(2024, 0, 1) + seconds * 1000).toISOString();
}

/**
 * Thread ids in code-point order, computed independently of @flow/core: by their UTF-8 bytes, which sort
 * exactly like code points. (`Array#sort` compares UTF-16 units and puts emoji before U+E000–U+FFFF.)
 */
export function codePointOrder(ids: readonly string[]): string[] {
  return [...ids].sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
}

/** Everything observable about one thread plus the thread listing: to prove a failed call changed nothing. */
export async function observe(
  cp: Checkpointer,
  thread: string,
): Promise<{ list: Checkpoint[]; threads: ThreadInfo[] }> {
  return { list: await cp.list(thread), threads: await cp.listThreads() };
}

/** The step numbers of a list of checkpoints. */
export function steps(list: readonly Checkpoint[]): number[] {
  return list.map((c) => c.step);
}

/** `count` values, one per index, in an array. */
export function range(count: number): number[] {
  return Array.from({ length: count }, (_, i) => i);
}
