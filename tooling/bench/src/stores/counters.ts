import type { Redis } from 'ioredis';
import type pg from 'pg';

/** What a store sent to its server: statements (Postgres) or commands (Redis), and round trips. */
export interface Counters {
  /** SQL statements, or Redis commands (MULTI and EXEC included). */
  commands: number;
  /** Requests written to the socket: a MULTI or pipeline is one. */
  roundTrips: number;
}

/** Fresh zeroed counters. */
export function newCounters(): Counters {
  return { commands: 0, roundTrips: 0 };
}

/** A copy of the counters, to subtract later with `since`. */
export function snapshot(c: Counters): Counters {
  return { ...c };
}

/** What was counted since `before`. */
export function since(c: Counters, before: Counters): Counters {
  return { commands: c.commands - before.commands, roundTrips: c.roundTrips - before.roundTrips };
}

/**
 * Counts every statement any client of `pool` runs, `pool.query` and checked-out clients alike: the pool
 * announces each new connection, and its `query` is wrapped there. pg sends one statement per round trip.
 */
export function countPool(pool: pg.Pool, counters: Counters): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      counters.commands++;
      counters.roundTrips++;
      return query(...args);
    };
  });
}

/**
 * Counts the commands an ioredis client sends (`sendCommand` sees each one, MULTI and EXEC included) and its
 * round trips: a command sent on its own is one; the commands of a MULTI or pipeline share one stream object,
 * which ioredis writes to the socket at once, so each new such stream is one.
 */
export function countRedis(client: Redis, counters: Counters): void {
  const send = client.sendCommand.bind(client);
  const pipelines = new WeakSet<object>();
  client.sendCommand = ((...args: Parameters<Redis['sendCommand']>) => {
    counters.commands++;
    const stream = args[1];
    if (stream === undefined) counters.roundTrips++;
    else if (!pipelines.has(stream)) {
      pipelines.add(stream);
      counters.roundTrips++;
    }
    return send(...args);
  }) as Redis['sendCommand'];
}
