/** One put waiting for a connection. */
export interface QueuedPut<P> {
  readonly thread: string;
  readonly item: P;
  /** False for a put that always goes alone (with writes, or chunks). */
  readonly groupable: boolean;
  resolve(revision: number): void;
  reject(error: unknown): void;
}

/** How a group ended: each put's new revision, or null when its condition did not hold (nothing written). */
export type GroupOutcome =
  | { ok: true; revisions: (number | null)[] }
  /** `retry`: the statement failed as a whole and nothing of it was stored (an SQL error), so each may run alone. */
  | { ok: false; retry: boolean; error: unknown };

/** At most this many puts in one group statement (its arrays stay small; a larger burst makes more groups). */
const MAX_GROUP = 100;

/**
 * Microtask hops a put waits at most while more puts keep joining the queue. Runs whose puts were answered in
 * the same read of the socket reach their next put a few promise ticks apart; a lone put waits one hop, no
 * event-loop turn.
 */
const MAX_HOPS = 16;

/**
 * Group commit for Postgres: while every connection of the pool is busy with a put, further puts queue, and
 * when one comes back the queued ones go out as one group statement — one round trip, one transaction, one
 * commit (one WAL flush) for all of them — instead of each waiting for a connection of its own. Puts made in
 * the same moment (a few microtasks apart, as concurrent runs reach them) go out together too. A lone put
 * goes out alone after one microtask, with the single-put statement, as without grouping.
 *
 * Each put stays atomic on its own: a group holds at most one put per thread, so its rows are independent; a
 * put whose condition does not hold writes nothing and rejects alone (`onConflict`); when the group statement
 * fails as a whole (Postgres refused one put's value, say), nothing of it was stored and each of its puts runs
 * again alone, so only the one at fault rejects. No put resolves before its group committed.
 */
export class PutGroups<P> {
  #queue: QueuedPut<P>[] = [];
  #inFlight = 0;
  #scheduled = false;
  #hops = 0;
  #seen = 0;

  /**
   * @param width puts in flight before others queue: the pool's size.
   * @param alone runs one put by itself (the single-put statement).
   * @param group runs a group statement; it settles with the outcome, never rejects.
   * @param onConflict answers a grouped put whose condition did not hold (looks up what is stored).
   */
  constructor(
    readonly width: number,
    readonly alone: (put: QueuedPut<P>) => Promise<number>,
    readonly group: (puts: readonly P[]) => Promise<GroupOutcome>,
    readonly onConflict: (put: QueuedPut<P>) => Promise<never>,
  ) {}

  /** Queues a put (or sends it at once when a connection is free); resolves once it is committed. */
  put(thread: string, item: P, groupable: boolean): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.#queue.push({ thread, item, groupable, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        this.#hops = 0;
        this.#seen = this.#queue.length;
        queueMicrotask(this.#tick);
      }
    });
  }

  readonly #tick = (): void => {
    if (this.#queue.length > this.#seen && this.#hops++ < MAX_HOPS) {
      this.#seen = this.#queue.length;
      queueMicrotask(this.#tick);
      return;
    }
    this.#scheduled = false;
    this.#pump();
  };

  #pump(): void {
    while (this.#queue.length > 0 && this.#inFlight < this.width) {
      const batch = this.#take();
      this.#inFlight++;
      const done = batch.length === 1 ? this.#runAlone(batch[0]!) : this.#runGroup(batch);
      void done.finally(() => {
        this.#inFlight--;
        this.#pump();
      });
    }
  }

  /**
   * The next put and, when it may be grouped, every queued groupable put of another thread after it. A put of a
   * thread already in the group, or behind one left out, waits for a later group: per thread, queue order.
   */
  #take(): QueuedPut<P>[] {
    const first = this.#queue.shift()!;
    if (!first.groupable || this.#queue.length === 0) return [first];
    const batch = [first];
    const taken = new Set([first.thread]);
    const left: QueuedPut<P>[] = [];
    const skipped = new Set<string>();
    for (const put of this.#queue) {
      const fits =
        put.groupable && batch.length < MAX_GROUP && !taken.has(put.thread) && !skipped.has(put.thread);
      if (fits) {
        batch.push(put);
        taken.add(put.thread);
      } else {
        left.push(put);
        skipped.add(put.thread);
      }
    }
    this.#queue = left;
    return batch;
  }

  async #runAlone(put: QueuedPut<P>): Promise<void> {
    try {
      put.resolve(await this.alone(put));
    } catch (error) {
      put.reject(error);
    }
  }

  async #runGroup(batch: QueuedPut<P>[]): Promise<void> {
    const outcome = await this.group(batch.map((put) => put.item));
    if (!outcome.ok) {
      // Nothing of the group was stored: each put runs again by itself, first in line, so only the one the
      // database refuses fails, with the error it gets alone. A failure that may have committed (the
      // connection dropped) is every put's: running them again could write twice.
      if (outcome.retry) this.#queue.unshift(...batch.map((put) => ({ ...put, groupable: false })));
      else for (const put of batch) put.reject(outcome.error);
      return;
    }
    await Promise.all(
      batch.map(async (put, i) => {
        const revision = outcome.revisions[i];
        if (revision !== null && revision !== undefined) put.resolve(revision);
        else await this.onConflict(put).catch(put.reject);
      }),
    );
  }
}
