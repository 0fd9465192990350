import type { Awaitable } from './base-checkpointer.js';

/**
 * A body of steps, written as a generator: `const v = yield* step(call())` reads like `const v = await call()`.
 * `runSteps` runs it synchronously while every call answers with a plain value (better-sqlite3), and
 * asynchronously from the first promise on, so one lifecycle serves synchronous and asynchronous drivers.
 */
export type Steps<R> = Generator<unknown, R, unknown>;

/** One step: waits for `value` when it is a promise (a rejection throws at the `yield*`), and returns it. */
export function* step<T>(value: Awaitable<T>): Steps<T> {
  return (yield value) as T;
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

/** Runs `steps` to its end: its result, a plain value when no step waited. */
export function runSteps<R>(steps: Steps<R>): Awaitable<R> {
  return advance(steps, false, undefined);
}

function advance<R>(steps: Steps<R>, failed: boolean, input: unknown): Awaitable<R> {
  for (;;) {
    const next = failed ? steps.throw(input) : steps.next(input);
    if (next.done) return next.value;
    if (isPromise(next.value)) {
      return next.value.then(
        (value) => advance(steps, false, value),
        (error: unknown) => advance(steps, true, error),
      );
    }
    failed = false;
    input = next.value;
  }
}
