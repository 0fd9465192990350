import type { StoreSubject, SubjectFactory } from '../stores/types.js';

/** A subject opened for one workload, with the factory that describes it. */
export interface Opened {
  factory: SubjectFactory;
  subject: StoreSubject;
}

/**
 * Opens every subject, runs `fn` with them, and closes them all whatever happens (so schemas, keys and files
 * go away even when a workload throws).
 */
export async function withSubjects<T>(
  factories: readonly SubjectFactory[],
  fn: (opened: Opened[]) => Promise<T>,
): Promise<T> {
  const opened: Opened[] = [];
  try {
    for (const factory of factories) opened.push({ factory, subject: await factory.open() });
    return await fn(opened);
  } finally {
    for (const { subject } of opened) await subject.close();
  }
}

/** Runs `task(i)` for `i` in `[0, count)`, at most `width` at a time. */
export async function inParallel(
  count: number,
  width: number,
  task: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, worker));
}
