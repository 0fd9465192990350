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
 * conflicting conditional put) is rolled back alone and rejects alone, the others commit. No promise
 * resolves before the group's COMMIT returned. A group of one runs the write's own transaction, as
 * without grouping.
 */
export class GroupCommit {
  #queue: Pending<unknown>[] = [];
  #scheduled = false;
  #hops = 0;
  #seen = 0;
  readonly #group: (items: Pending<unknown>[], outcomes: Outcome[]) => void;

  constructor(db: SqliteDatabase) {
    this.#group = db.transaction((items: Pending<unknown>[], outcomes: Outcome[]) => {
      for (const [index, item] of items.entries()) {
        try {
          outcomes.push({ ok: true, value: item.write() });
        } catch (error) {
          // SQLite answered this write by rolling back the whole transaction (RAISE(ROLLBACK), some I/O
          // errors): the writes before it are gone too.
          if (!db.inTransaction) throw new RolledBack(index, error);
          outcomes.push({ ok: false, error });
        }
      }
    }).immediate;
  }

  /** Queues `write` for the next group; resolves with its result once the group is committed. */
  add<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ write, resolve, reject } as Pending<unknown>);
      if (!this.#scheduled) {
        this.#scheduled = true;
        this.#hops = 0;
        this.#seen = 1;
        queueMicrotask(this.#tick);
      }
    });
  }

  readonly #tick = (): void => {
    if (!this.#scheduled) return; // flushed already, by another operation
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
    if (items.length === 0) return;
    this.#queue = [];
    if (items.length === 1) {
      const item = items[0]!;
      let value: unknown;
      try {
        value = item.write();
      } catch (error) {
        item.reject(error);
        return;
      }
      item.resolve(value);
      return;
    }
    this.#commit(items);
  }

  #commit(items: Pending<unknown>[]): void {
    const outcomes: Outcome[] = [];
    try {
      this.#group(items, outcomes);
    } catch (error) {
      if (error instanceof RolledBack) {
        // The write that took the transaction down fails alone; the others run again without it.
        items[error.index]!.reject(error.cause);
        const rest = items.filter((_, i) => i !== error.index);
        if (rest.length > 0) this.#commit(rest);
        return;
      }
      // The COMMIT itself failed: nothing of the group is stored, and every write in it rejects.
      for (const [i, item] of items.entries()) {
        const own = outcomes[i];
        item.reject(own !== undefined && !own.ok ? own.error : error);
      }
      return;
    }
    for (const [i, item] of items.entries()) {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    }
  }
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Thrown out of the group transaction when write `index` made SQLite roll all of it back. */
class RolledBack extends Error {
  constructor(
    readonly index: number,
    cause: unknown,
  ) {
    super('the group transaction was rolled back', { cause });
  }
}
