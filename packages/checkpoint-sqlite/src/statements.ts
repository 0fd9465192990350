import type { ThreadStatus } from '@flow/core';
import type { SqliteDatabase, SqliteStatement } from './driver.js';

/** What a read selects, in the order of `CheckpointRow` (rows.ts). The caller knows the thread already. */
// `nullif`: the usual payload, JSON `null`, comes back as SQL NULL, which costs the driver no string.
const READ_COLUMNS =
  "step, revision, ts, next, interrupted, interrupt_node, nullif(interrupt_payload, 'null'), state, error, nullif(meta, '{}'), refs";
// Writes bind by position too, in the order of `WriteValues` (rows.ts).
const COLUMNS =
  'thread, step, ts, ts_ms, next, interrupted, interrupt_node, interrupt_payload, state, error, meta, refs';
const INSERT = `INSERT INTO flow_checkpoints (revision, ${COLUMNS}) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
/** The columns a write sets on a stored row, from `source` (the values of the put). */
const set = (source: string) =>
  COLUMNS.split(', ')
    .slice(2)
    .map((c) => `${c} = ${source}.${c}`)
    .join(', ');
/** The steps `list` reads: (thread, beforeStep, limit). */
const LISTED = 'FROM flow_checkpoints WHERE thread = ? AND step < ? ORDER BY step DESC LIMIT ?';
/** The steps `prune` removes: never the latest, so the summary (which describes it) stays right without a write. */
const PRUNED = `FROM flow_checkpoints WHERE thread = @thread
      AND (@beforeStep IS NULL OR step < @beforeStep)
      AND (@olderThan IS NULL OR ts_ms < @olderThan)
      AND step < (SELECT max(step) FROM flow_checkpoints WHERE thread = @thread)`;

/**
 * `listThreads` filters; each is a prepared statement of its own so SQLite can plan it on an index. The SQL
 * form of core's `statusOf` (`done` is an empty frontier and not interrupted): test/status-rule.test.ts
 * checks it against `statusOf` over every combination.
 */
export const STATUS_FILTER: Record<ThreadStatus | 'any', string> = {
  any: '',
  interrupted: 'AND interrupted = 1',
  done: 'AND done = 1',
  failed: 'AND done = 0 AND interrupted = 0 AND error IS NOT NULL',
  running: 'AND done = 0 AND interrupted = 0 AND error IS NULL',
};

/** The SQL of every statement the checkpointer runs, by role (tests inspect their query plans). */
export const SQL = {
  // Each write is one statement: the triggers of schema version 4 keep the thread summary in it. Only `upsert`
  // answers with RETURNING, which costs SQLite an ephemeral table per statement (a sixth of a 2 KB put's CPU):
  // a put that inserts stores revision 1, and one at revision n stores n + 1.
  /** (values): insert at revision 1, or bump the stored revision; answers the stored revision. */
  upsert: `${INSERT} ON CONFLICT (thread, step) DO UPDATE SET revision = revision + 1, ${set('excluded')}
    RETURNING revision`,
  /** `ifRevision: 0`, and an unconditional put's first try (values): changes nothing when a row is stored. */
  insertNew: `${INSERT} ON CONFLICT (thread, step) DO NOTHING`,
  /** `ifRevision: n > 0` (values, n): update only at revision n; no change means a conflict. */
  updateAt: `UPDATE flow_checkpoints SET revision = revision + 1, ${set('v')}
    FROM (SELECT ${COLUMNS.split(', ')
      .map((c) => `? AS ${c}`)
      .join(', ')}) AS v
    WHERE flow_checkpoints.thread = v.thread AND flow_checkpoints.step = v.step AND revision = ?`,
  /** (thread, step): read only after a conflict, to report `actual`. */
  revision: 'SELECT revision FROM flow_checkpoints WHERE thread = ? AND step = ?',
  // Reads bind by position and return arrays (`READS`): for a 2 KB checkpoint that is a quarter of the
  // time of named parameters and row objects, and reads are what the raw driver is measured against.
  /** (thread) */
  latest: `SELECT ${READ_COLUMNS} FROM flow_checkpoints WHERE thread = ? ORDER BY step DESC LIMIT 1`,
  /** (thread, step) */
  at: `SELECT ${READ_COLUMNS} FROM flow_checkpoints WHERE thread = ? AND step = ?`,
  /** (thread, beforeStep, limit) */
  list: `SELECT ${READ_COLUMNS} ${LISTED}`,
  /**
   * (thread, refs as JSON text): the chunks one record references. Refs that are not JSON (a damaged row)
   * reference none here, so the read reaches the row check, which reports the row as corrupt.
   */
  chunksOf: `SELECT id, data FROM flow_chunks WHERE thread = ? AND id IN (
    SELECT j.value FROM (SELECT ? AS refs) AS r, json_each(iif(json_valid(r.refs), r.refs, '[]')) AS j)`,
  /** (thread, thread, beforeStep, limit): the chunks the records of a `list` reference, each once. */
  chunksOfList: `SELECT id, data FROM flow_chunks WHERE thread = ? AND id IN (
    SELECT j.value FROM (SELECT refs ${LISTED}) AS r, json_each(iif(json_valid(r.refs), r.refs, '[]')) AS j)`,
  /** (thread, id, data): an id already stored keeps its data (core never reuses an id for other data). */
  addChunk: 'INSERT INTO flow_chunks (thread, id, data) VALUES (?, ?, ?) ON CONFLICT (thread, id) DO NOTHING',
  /** (ids as JSON text, thread): the first of the ids not stored, if any, to verify a put's refs. */
  missingChunk: `SELECT j.value FROM json_each(?) AS j
    WHERE NOT EXISTS (SELECT 1 FROM flow_chunks WHERE thread = ? AND id = j.value) LIMIT 1`,
  threads: Object.fromEntries(
    Object.entries(STATUS_FILTER).map(([status, filter]) => [
      status,
      /** (after, limit) */
      `SELECT thread, latest_step, interrupted, done, ts, error FROM flow_threads
        WHERE thread > ? ${filter} ORDER BY thread LIMIT ?`,
    ]),
  ) as Record<ThreadStatus | 'any', string>,
  deleteCheckpoints: 'DELETE FROM flow_checkpoints WHERE thread = @thread',
  deleteThread: 'DELETE FROM flow_threads WHERE thread = @thread',
  deleteWrites: 'DELETE FROM flow_writes WHERE thread = @thread',
  deleteLease: 'DELETE FROM flow_leases WHERE thread = @thread',
  deleteChunks: 'DELETE FROM flow_chunks WHERE thread = @thread',
  prune: `DELETE ${PRUNED}`,
  /** The writes of exactly the steps `prune` removes; run first, in the same transaction. */
  pruneWrites: `DELETE FROM flow_writes WHERE thread = @thread AND step IN (SELECT step ${PRUNED})`,
  /** The chunks no remaining record references; run after `prune`, in the same transaction. */
  pruneChunks: `DELETE FROM flow_chunks WHERE thread = @thread AND id NOT IN (
    SELECT j.value FROM flow_checkpoints AS c, json_each(c.refs) AS j WHERE c.thread = @thread)`,
  /** First value wins: a stored (thread, step, node, key) is left as it is. */
  addWrite: `INSERT INTO flow_writes (thread, step, node, key, value) VALUES (@thread, @step, @node, @key, @value)
    ON CONFLICT DO NOTHING`,
  /** BINARY collation: UTF-8 bytes, i.e. code-point order of (node, key). */
  writesAt:
    'SELECT node, key, value FROM flow_writes WHERE thread = @thread AND step = @step ORDER BY node, key',
  leaseOf: 'SELECT owner, host, pid, expires_ms AS expiresMs FROM flow_leases WHERE thread = @thread',
  putLease: `INSERT INTO flow_leases (thread, owner, host, pid, expires_ms) VALUES (@thread, @owner, @host, @pid, @expiresMs)
    ON CONFLICT (thread) DO UPDATE SET owner = excluded.owner, host = excluded.host, pid = excluded.pid,
      expires_ms = excluded.expires_ms`,
  extendLease: `UPDATE flow_leases SET expires_ms = @expiresMs
    WHERE thread = @thread AND owner = @owner AND expires_ms > @now`,
  dropLease: 'DELETE FROM flow_leases WHERE thread = @thread AND owner = @owner',
} as const;

type Prepared<T> = { [K in keyof T]: T[K] extends string ? SqliteStatement : Prepared<T[K]> };

/** Every statement, prepared once per connection and reused for the checkpointer's lifetime. */
export type Statements = Prepared<typeof SQL>;

/** The statements whose rows come back as arrays (`raw`), in the order they select. */
const READS = new Set(['latest', 'at', 'list', 'threads', 'chunksOf', 'chunksOfList', 'missingChunk']);
/** The statements that answer one value (`pluck`): the stored revision. */
const REVISIONS = new Set(['upsert', 'revision']);

function prepareAll<T extends object>(db: SqliteDatabase, sql: T, raw = false): Prepared<T> {
  return Object.fromEntries(
    Object.entries(sql).map(([key, value]) => {
      const asArrays = raw || READS.has(key);
      if (typeof value !== 'string') return [key, prepareAll(db, value as object, asArrays)];
      const statement = db.prepare(value);
      if (REVISIONS.has(key)) return [key, statement.pluck(true)];
      return [key, asArrays ? statement.raw(true) : statement];
    }),
  ) as Prepared<T>;
}

/** Prepares every statement; the schema must exist. */
export function prepareStatements(db: SqliteDatabase): Statements {
  return prepareAll(db, SQL);
}
