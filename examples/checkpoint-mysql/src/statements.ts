import type { ThreadStatus } from '@flow/core';
import { idsOf, type Tables } from './schema.js';

/** Columns of a checkpoint row, in the order `toRecord` reads them. */
const COLUMNS =
  'step, revision, ts_ms, next, interrupted, interrupt_node, interrupt_payload, state, error, meta, refs';
/** What a chunk row of a read carries in the checkpoint columns. */
const NO_COLUMNS = COLUMNS.split(', ')
  .map(() => 'NULL')
  .join(', ');

/**
 * Core's `statusOf` in SQL, on the summary (`done` is stored as "empty frontier and not interrupted"):
 * interrupted first, then done, then a recorded error is failed. The kit's failed-runs suite checks it
 * against `statusOf` for every combination.
 */
export const STATUS_FILTER: Record<ThreadStatus, string> = {
  running: 'AND NOT interrupted AND NOT done AND error IS NULL',
  interrupted: 'AND interrupted',
  done: 'AND done',
  failed: 'AND NOT interrupted AND NOT done AND error IS NOT NULL',
};

/** The server's clock, in UTC (a `DATETIME` carries no zone; the session's zone must not matter). */
const NOW = 'UTC_TIMESTAMP(3)';
/** A lease's expiry as epoch milliseconds, computed without any time zone. */
const EXPIRES_MS = "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', expires_at) DIV 1000 AS expires_ms";
const LEASE_COLUMNS = `owner, host, pid, ${EXPIRES_MS}`;

/** The most rows one write insert carries; a larger batch is split, in order, inside the transaction. */
export const WRITES_PER_INSERT = 256;

/**
 * Every statement of one store. Values are always `?` parameters of a prepared statement; only the table
 * names (from a validated prefix) and fixed SQL fragments are part of the text.
 */
export function buildStatements(t: Tables) {
  const insert = `INSERT INTO ${t.checkpoints}
    (thread, step, revision, ts_ms, next, interrupted, interrupt_node, interrupt_payload, state, error, meta, refs)
    VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
  /**
   * Checkpoints with the chunks they reference, in one statement and so one snapshot: the rows of `records`
   * (`kind` 0), then every chunk their refs name, each once (`kind` 1: `chunk_id`, `chunk_data`). `where` is
   * what follows `FROM checkpoints`; its parameters come twice, around the thread's.
   */
  const withChunks = (where: string) => `
    SELECT 0 AS kind, r.*, NULL AS chunk_id, NULL AS chunk_data
      FROM (SELECT ${COLUMNS} FROM ${t.checkpoints} ${where}) AS r
    UNION ALL
    SELECT 1, ${NO_COLUMNS}, c.id, c.data FROM ${t.chunks} AS c WHERE c.thread = ? AND c.id IN (
      SELECT j.id FROM (SELECT refs FROM ${t.checkpoints} ${where}) AS k, ${idsOf('k.refs')} AS j)`;
  return {
    /** `ifRevision: 0`: the primary key refuses a second row (ER_DUP_ENTRY). */
    insert,
    /** Unconditional put: insert, or bump the revision of the stored row. */
    upsert: `${insert} ON DUPLICATE KEY UPDATE
      revision = revision + 1, ts_ms = VALUES(ts_ms), next = VALUES(next),
      interrupted = VALUES(interrupted), interrupt_node = VALUES(interrupt_node),
      interrupt_payload = VALUES(interrupt_payload), state = VALUES(state), error = VALUES(error),
      meta = VALUES(meta), refs = VALUES(refs)`,
    /** `ifRevision: n`: changes the row only when its revision is still n. */
    updateIfRevision: `UPDATE ${t.checkpoints} SET
      revision = revision + 1, ts_ms = ?, next = ?, interrupted = ?, interrupt_node = ?,
      interrupt_payload = ?, state = ?, error = ?, meta = ?, refs = ?
      WHERE thread = ? AND step = ? AND revision = ?`,
    revisionOf: `SELECT revision FROM ${t.checkpoints} WHERE thread = ? AND step = ?`,
    /**
     * Moves the summary only when the step is the thread's highest. MySQL assigns left to right and later
     * assignments see earlier ones, so `latest_step` comes last: the conditions above it read the old value.
     */
    upsertSummary: `INSERT INTO ${t.threads} (thread, latest_step, interrupted, done, error, ts_ms)
      VALUES (?, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE
      interrupted = IF(VALUES(latest_step) >= latest_step, VALUES(interrupted), interrupted),
      done = IF(VALUES(latest_step) >= latest_step, VALUES(done), done),
      error = IF(VALUES(latest_step) >= latest_step, VALUES(error), error),
      ts_ms = IF(VALUES(latest_step) >= latest_step, VALUES(ts_ms), ts_ms),
      latest_step = GREATEST(latest_step, VALUES(latest_step))`,
    /** (thread, thread, thread) */
    getLatest: withChunks('WHERE thread = ? ORDER BY step DESC LIMIT 1'),
    /** (thread, step, thread, thread, step) */
    getStep: withChunks('WHERE thread = ? AND step = ?'),
    /** (thread, beforeStep[, limit], thread, thread, beforeStep[, limit]); rows in no particular order. */
    list: (limited: boolean) =>
      withChunks(`WHERE thread = ? AND step < ? ORDER BY step DESC${limited ? ' LIMIT ?' : ''}`),
    /**
     * `rows` chunks (thread, id, data each). An id already stored keeps its data (core never reuses an id
     * for other data); the no-op update, unlike `INSERT IGNORE`, still fails on any other error.
     */
    insertChunks: (rows: number) => `INSERT INTO ${t.chunks} (thread, id, data)
      VALUES ${Array.from({ length: rows }, () => '(?, ?, ?)').join(', ')}
      ON DUPLICATE KEY UPDATE thread = thread`,
    /**
     * (ids as a JSON array, thread): those of the ids stored, share-locked until the put commits, so no
     * prune or delete can remove one under a put that references it.
     */
    storedChunks: `SELECT c.id FROM ${t.chunks} AS c JOIN ${idsOf('?')} AS j ON c.id = j.id
      WHERE c.thread = ? LOCK IN SHARE MODE`,
    /** Prune, first: every chunk of the thread, locked, so no put can start referencing one meanwhile. */
    lockChunks: `SELECT id FROM ${t.chunks} WHERE thread = ? FOR UPDATE`,
    /** Prune, then: the chunk ids the remaining checkpoints reference (a locking read: the latest rows). */
    referencedChunks: `SELECT j.id FROM ${t.checkpoints} AS k, ${idsOf('k.refs')} AS j
      WHERE k.thread = ? LOCK IN SHARE MODE`,
    /** (thread, ids as a JSON array) */
    removeChunks: `DELETE FROM ${t.chunks} WHERE thread = ? AND id IN (SELECT j.id FROM ${idsOf('?')} AS j)`,
    deleteChunks: `DELETE FROM ${t.chunks} WHERE thread = ?`,
    listThreads: (after: boolean, status: ThreadStatus | undefined, limited: boolean) =>
      `SELECT thread, latest_step, interrupted, done, error, ts_ms FROM ${t.threads}
       WHERE TRUE ${after ? 'AND thread > ?' : ''} ${status ? STATUS_FILTER[status] : ''}
       ORDER BY thread${limited ? ' LIMIT ?' : ''}`,
    /**
     * Never the thread's highest step. MySQL refuses a subquery on the table a DELETE changes unless it is
     * a derived table; the aggregate keeps it materialised (read once) rather than merged into the DELETE.
     */
    prune: (olderThan: boolean) => `DELETE FROM ${t.checkpoints}
      WHERE thread = ? AND step < ? ${olderThan ? 'AND ts_ms < ?' : ''}
        AND step < (SELECT latest.step FROM
          (SELECT MAX(step) AS step FROM ${t.checkpoints} WHERE thread = ?) AS latest)`,
    /** The writes of the steps `prune` removes: the same bounds, read before the checkpoints go. */
    pruneWrites: (olderThan: boolean) => `DELETE FROM ${t.writes}
      WHERE thread = ? AND step IN (SELECT step FROM ${t.checkpoints}
        WHERE thread = ? AND step < ? ${olderThan ? 'AND ts_ms < ?' : ''}
          AND step < (SELECT MAX(step) FROM ${t.checkpoints} WHERE thread = ?))`,
    deleteCheckpoints: `DELETE FROM ${t.checkpoints} WHERE thread = ?`,
    deleteSummary: `DELETE FROM ${t.threads} WHERE thread = ?`,
    deleteWrites: `DELETE FROM ${t.writes} WHERE thread = ?`,
    deleteLease: `DELETE FROM ${t.leases} WHERE thread = ?`,
    /**
     * `rows` writes (thread, step, hash, node, key, value each). A stored (thread, step, node, key) keeps its
     * value: the no-op update, unlike `INSERT IGNORE`, still fails on any other error (a value too long, a
     * bad string). Rows of one statement are inserted in order, so within a batch the first one wins.
     */
    insertWrites: (rows: number) => `INSERT INTO ${t.writes} (thread, step, write_hash, node, \`key\`, value)
      VALUES ${Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?)').join(', ')}
      ON DUPLICATE KEY UPDATE thread = thread`,
    getWrites: `SELECT node, \`key\`, value FROM ${t.writes} WHERE thread = ? AND step = ?`,
    /**
     * Takes the lease (thread, owner, host, pid, ttl in µs, replace) when it is free, expired, the owner's or
     * `replace`'s. \`owner\` is assigned first: once it is the new owner, the same condition holds for the
     * columns after it, and when the lease is not taken nothing changes, so every column sees one decision.
     */
    acquireLease: `INSERT INTO ${t.leases} (thread, owner, host, pid, expires_at)
      VALUES (?, ?, ?, ?, ${NOW} + INTERVAL ? MICROSECOND) ON DUPLICATE KEY UPDATE
      owner = IF(expires_at <= ${NOW} OR owner = VALUES(owner) OR owner = ?, VALUES(owner), owner),
      host = IF(owner = VALUES(owner), VALUES(host), host),
      pid = IF(owner = VALUES(owner), VALUES(pid), pid),
      expires_at = IF(owner = VALUES(owner), VALUES(expires_at), expires_at)`,
    /** The lease as stored, live or not (read in acquireLease's transaction, after its upsert). */
    leaseRow: `SELECT ${LEASE_COLUMNS} FROM ${t.leases} WHERE thread = ?`,
    /** Locks (thread, owner)'s live lease, for renewLease. */
    liveLeaseOf: `SELECT 1 AS live FROM ${t.leases}
      WHERE thread = ? AND owner = ? AND expires_at > ${NOW} FOR UPDATE`,
    renewLease: `UPDATE ${t.leases} SET expires_at = ${NOW} + INTERVAL ? MICROSECOND WHERE thread = ?`,
    releaseLease: `DELETE FROM ${t.leases} WHERE thread = ? AND owner = ?`,
    getLease: `SELECT ${LEASE_COLUMNS} FROM ${t.leases} WHERE thread = ? AND expires_at > ${NOW}`,
  };
}

export type Statements = ReturnType<typeof buildStatements>;
