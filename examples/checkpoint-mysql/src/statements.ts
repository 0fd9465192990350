import type { ThreadStatus } from '@flow/core';
import type { Tables } from './schema.js';

/** Columns of a checkpoint row, in the order `toRecord` reads them. */
const COLUMNS = 'step, revision, ts_ms, next, interrupted, interrupt_node, interrupt_payload, state';

const STATUS_FILTER: Record<ThreadStatus, string> = {
  running: 'AND NOT interrupted AND NOT done',
  interrupted: 'AND interrupted',
  done: 'AND done',
  // This schema stores no run error yet, so no thread is failed.
  failed: 'AND FALSE',
};

/**
 * Every statement of one store. Values are always `?` parameters of a prepared statement; only the table
 * names (from a validated prefix) and fixed SQL fragments are part of the text.
 */
export function buildStatements(t: Tables) {
  const insert = `INSERT INTO ${t.checkpoints}
    (thread, step, revision, ts_ms, next, interrupted, interrupt_node, interrupt_payload, state)
    VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?)`;
  return {
    /** `ifRevision: 0`: the primary key refuses a second row (ER_DUP_ENTRY). */
    insert,
    /** Unconditional put: insert, or bump the revision of the stored row. */
    upsert: `${insert} ON DUPLICATE KEY UPDATE
      revision = revision + 1, ts_ms = VALUES(ts_ms), next = VALUES(next),
      interrupted = VALUES(interrupted), interrupt_node = VALUES(interrupt_node),
      interrupt_payload = VALUES(interrupt_payload), state = VALUES(state)`,
    /** `ifRevision: n`: changes the row only when its revision is still n. */
    updateIfRevision: `UPDATE ${t.checkpoints} SET
      revision = revision + 1, ts_ms = ?, next = ?, interrupted = ?, interrupt_node = ?,
      interrupt_payload = ?, state = ?
      WHERE thread = ? AND step = ? AND revision = ?`,
    revisionOf: `SELECT revision FROM ${t.checkpoints} WHERE thread = ? AND step = ?`,
    /**
     * Moves the summary only when the step is the thread's highest. MySQL assigns left to right and later
     * assignments see earlier ones, so `latest_step` comes last: the conditions above it read the old value.
     */
    upsertSummary: `INSERT INTO ${t.threads} (thread, latest_step, interrupted, done, ts_ms)
      VALUES (?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE
      interrupted = IF(VALUES(latest_step) >= latest_step, VALUES(interrupted), interrupted),
      done = IF(VALUES(latest_step) >= latest_step, VALUES(done), done),
      ts_ms = IF(VALUES(latest_step) >= latest_step, VALUES(ts_ms), ts_ms),
      latest_step = GREATEST(latest_step, VALUES(latest_step))`,
    getLatest: `SELECT ${COLUMNS} FROM ${t.checkpoints} WHERE thread = ? ORDER BY step DESC LIMIT 1`,
    getStep: `SELECT ${COLUMNS} FROM ${t.checkpoints} WHERE thread = ? AND step = ?`,
    list: (limited: boolean) =>
      `SELECT ${COLUMNS} FROM ${t.checkpoints} WHERE thread = ? AND step < ?
       ORDER BY step DESC${limited ? ' LIMIT ?' : ''}`,
    listThreads: (after: boolean, status: ThreadStatus | undefined, limited: boolean) =>
      `SELECT thread, latest_step, interrupted, done, ts_ms FROM ${t.threads}
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
    deleteCheckpoints: `DELETE FROM ${t.checkpoints} WHERE thread = ?`,
    deleteSummary: `DELETE FROM ${t.threads} WHERE thread = ?`,
  };
}

export type Statements = ReturnType<typeof buildStatements>;
