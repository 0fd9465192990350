import type { SqliteDatabase } from './driver.js';

/** One queued write: its own transaction function, and the promise of its caller. */
interface Pending<T> {
  write: () => T;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

/**
 * Microtask hops a group waits at most while more writes keep joining it. Concurrent runs reach their next
 * write a few promise ticks apart, as their awaits unwind; a lone write waits one hop, no event-loop turn.
 */
const MAX_HOPS = 16;

/**
 * Group commit: writes queued in the same moment (concurrent runs of one process) run in one `BEGIN
 * IMMEDIATE` transaction, so they share one commit and, with `synchronous = FULL`, one fsync. Each write is
 * a better-sqlite3 transaction function, which inside the group runs as a savepoint: one that throws (a
 * conflicting conditional put) is rolled back alone and rejects alone, the others commit. When the group
 * cannot commit at all, every write runs again alone. No promise resolves before its COMMIT returned. A
 * group of one runs the write's own transaction, as without grouping.
 */
export class GroupCommit {
  #queue: Pending<unknown>[] = [];
  #scheduled = false;
  #hops = 0;
  #seen = 0;
  readonly #group: (items: Pending<unknown>[], outcomes: Outcome[]) => void;

  constructor(db: SqliteDatabase) {
    this.#group = db.transaction((items: Pending<unknown>[], outcomes: Outcome[]) => {
      for (const item of items) {
        try {
          outcomes.push({ ok: true, value: item.write() });
        } catch (error) {
          // SQLite answered this write by rolling back the whole transaction (RAISE(ROLLBACK), some I/O
          // errors): the writes before it are gone too, and one more would run outside any transaction.
          if (!db.inTransaction) throw error;
          outcomes.push({ ok: false, error });
        }
      }
    }).immediate;
  }

  /** Queues `write` for the next group; resolves with its result once the group is committed. */
  add<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ write, resolve, reject } as Pending<unknown>);
      // Stryker disable next-line ConditionalExpression: how long a group waits changes only how many writes share a commit
      if (!this.#scheduled) {
        this.#scheduled = true;
        this.#hops = 0;
        this.#seen = 1;
        queueMicrotask(this.#tick);
      }
    });
  }

  readonly #tick = (): void => {
    // Stryker disable next-line ConditionalExpression: how long a group waits changes only how many writes share a commit
    if (!this.#scheduled) return; // flushed already, by another operation
    // Stryker disable next-line all: how long a group waits changes only how many writes share a commit
    if (this.#queue.length > this.#seen && this.#hops++ < MAX_HOPS) {
      this.#seen = this.#queue.length;
      queueMicrotask(this.#tick);
      return;
    }
    this.flush();
  };

  /**
   * Commits what is queued now. Every other operation calls this first, so it sees the writes issued
   * before it, in order, as it would without grouping.
   */
  flush(): void {
    this.#scheduled = false;
    const items = this.#queue;
    // Stryker disable next-line ConditionalExpression: an empty group commits an empty transaction
    if (items.length === 0) return;
    this.#queue = [];
    // Stryker disable next-line ConditionalExpression,BlockStatement: a group of one commits the same, in a savepoint
    if (items.length === 1) {
      alone(items[0]!);
      return;
    }
    this.#commit(items);
  }

  #commit(items: Pending<unknown>[]): void {
    const outcomes: Outcome[] = [];
    try {
      this.#group(items, outcomes);
    } catch {
      // Nothing of the group is stored: a write made SQLite roll it all back, or the COMMIT itself failed (a
      // deferred constraint, an I/O error). Each write runs again in a transaction of its own, so the one the
      // store refuses fails alone and the others still land.
      for (const item of items) alone(item);
      return;
    }
    for (const [i, item] of items.entries()) {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    }
  }
}

/** Runs one write in its own transaction and settles its caller: resolved only once it is committed. */
function alone(item: Pending<unknown>): void {
  let value: unknown;
  try {
    value = item.write();
  } catch (error) {
    item.reject(error);
    return;
  }
  item.resolve(value);
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };
