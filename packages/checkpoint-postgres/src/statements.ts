import { createHash } from 'node:crypto';
import type { PgQueryConfig } from './driver.js';
import { quoteIdent, quoteLiteral } from './quote.js';
import { epochMs } from './timestamp.js';

/** A named prepared statement: the name is a hash of the text, so one pool can serve many schemas. */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

function statement(text: string): Statement {
  // Postgres truncates names at 63 bytes; a short hash keeps distinct texts apart.
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 24);
  return { name: `flow_pg_${hash}`, text: text.replace(/\s+/g, ' ').trim() };
}

/** A query config running `statement` with `values`. */
export function bind(statement: Statement, values: unknown[]): PgQueryConfig {
  return { name: statement.name, text: statement.text, values };
}

/** Columns of a checkpoint as read back: JSONB as text (parsed once, by the serializer), ts as epoch ms. */
const CHECKPOINT_COLUMNS = `step, revision::float8 AS revision, state::text AS state,
  array_to_json(next)::text AS next, interrupted, interrupt_node,
  interrupt_payload::text AS interrupt_payload, ${epochMs('ts')} AS ts`;

const THREAD_COLUMNS = `thread, latest_step, interrupted, done, ${epochMs('ts')} AS ts`;

/**
 * Takes the thread's transaction-scoped advisory lock, keyed on a 64-bit hash of "schema.thread". Every put
 * and deleteThread takes it before touching a row, so writers of one thread run one at a time, in one lock
 * order (no deadlocks), and a delete never misses a checkpoint whose put was in flight. Unlike a row lock it
 * exists before the thread's first row and after its deletion. `$1` is the thread id.
 */
function threadLock(schema: string): string {
  return `SELECT pg_advisory_xact_lock(hashtextextended(${quoteLiteral(`${schema}.`)} || $1::text, 0))`;
}

/**
 * One put: take the thread's lock, write the checkpoint, and move the summary when this is now the highest
 * step — one statement, one transaction, one round trip. The write depends on the lock's result, so Postgres
 * runs the lock first.
 *
 * Parameters of the three puts: $1 thread, $2 step, $3 state, $4 next, $5 interrupted, $6 interrupt node,
 * $7 interrupt payload, $8 ts, and for the conditional update $9 the expected revision.
 */
function put(schema: string, s: string, write: string): string {
  return `
    WITH locked AS (
      ${threadLock(schema)}
    ), cp AS (
      ${write}
      RETURNING c.revision
    ), summary AS (
      INSERT INTO ${s}.threads AS t (thread, latest_step, interrupted, done, ts)
      SELECT $1::text, $2::integer, $5::boolean, cardinality($4::text[]) = 0 AND NOT $5::boolean, $8::timestamptz
      FROM cp
      ON CONFLICT (thread) DO UPDATE SET
        latest_step = EXCLUDED.latest_step, interrupted = EXCLUDED.interrupted,
        done = EXCLUDED.done, ts = EXCLUDED.ts
      WHERE EXCLUDED.latest_step >= t.latest_step
    )
    SELECT revision::float8 AS revision FROM cp`;
}

function insert(s: string, onConflict: string): string {
  return `
    INSERT INTO ${s}.checkpoints AS c
      (thread, step, revision, state, next, interrupted, interrupt_node, interrupt_payload, ts)
    SELECT $1::text, $2::integer, 1, $3::jsonb, $4::text[], $5::boolean, $6::text, $7::jsonb, $8::timestamptz
    WHERE (SELECT count(*) FROM locked) >= 0
    ${onConflict}`;
}

const OVERWRITE = `
  revision = c.revision + 1, state = EXCLUDED.state, next = EXCLUDED.next,
  interrupted = EXCLUDED.interrupted, interrupt_node = EXCLUDED.interrupt_node,
  interrupt_payload = EXCLUDED.interrupt_payload, ts = EXCLUDED.ts`;

/** Every statement of one schema. */
export interface Statements {
  /** Unconditional upsert: revision 1 when new, else old + 1. */
  put: Statement;
  /** `ifRevision: 0`: inserts only when nothing is stored at (thread, step). */
  putIfAbsent: Statement;
  /** `ifRevision: n > 0`: updates only when the stored revision is n. */
  putIfRevision: Statement;
  /** The stored revision of (thread, step), read only after a conditional put wrote nothing. */
  revisionOf: Statement;
  getLatest: Statement;
  getStep: Statement;
  /** $2 exclusive upper bound of step (bigint), $3 limit or null. */
  list: Statement;
  /** $1 exclusive lower bound of thread ('' for none), $2 limit or null; one per status filter. */
  listThreads: Record<'all' | 'running' | 'interrupted' | 'done' | 'failed', Statement>;
  /** $2 exclusive step bound, $3 exclusive ts bound; keeps the thread's highest step. */
  prune: Statement;
  /** Takes the thread's advisory lock (inside deleteThread's transaction). */
  lockThread: Statement;
  /** Deletes the thread's checkpoints and summary; resolves with the count of checkpoints. */
  deleteThread: Statement;
}

/** Builds the statements of `schema` (validated by the caller; quoted here). */
export function buildStatements(schema: string): Statements {
  const s = quoteIdent(schema);
  const threads = (filter: string) =>
    statement(`
      SELECT ${THREAD_COLUMNS} FROM ${s}.threads
      WHERE thread > $1::text COLLATE "C" ${filter}
      ORDER BY thread LIMIT $2::bigint`);
  return {
    put: statement(put(schema, s, insert(s, `ON CONFLICT (thread, step) DO UPDATE SET ${OVERWRITE}`))),
    putIfAbsent: statement(put(schema, s, insert(s, 'ON CONFLICT (thread, step) DO NOTHING'))),
    putIfRevision: statement(
      put(
        schema,
        s,
        `UPDATE ${s}.checkpoints AS c SET
           revision = c.revision + 1, state = $3::jsonb, next = $4::text[], interrupted = $5::boolean,
           interrupt_node = $6::text, interrupt_payload = $7::jsonb, ts = $8::timestamptz
         WHERE c.thread = $1::text AND c.step = $2::integer AND c.revision = $9::bigint
           AND (SELECT count(*) FROM locked) >= 0`,
      ),
    ),
    revisionOf: statement(
      `SELECT revision::float8 AS revision FROM ${s}.checkpoints WHERE thread = $1::text AND step = $2::integer`,
    ),
    getLatest: statement(
      `SELECT ${CHECKPOINT_COLUMNS} FROM ${s}.checkpoints WHERE thread = $1::text ORDER BY step DESC LIMIT 1`,
    ),
    getStep: statement(
      `SELECT ${CHECKPOINT_COLUMNS} FROM ${s}.checkpoints WHERE thread = $1::text AND step = $2::integer`,
    ),
    list: statement(`
      SELECT ${CHECKPOINT_COLUMNS} FROM ${s}.checkpoints
      WHERE thread = $1::text AND step < $2::bigint
      ORDER BY step DESC LIMIT $3::bigint`),
    listThreads: {
      all: threads(''),
      running: threads('AND NOT interrupted AND NOT done'),
      // Literally `AND interrupted`, so the planner can use the partial index.
      interrupted: threads('AND interrupted'),
      done: threads('AND done'),
      // This schema stores no run error yet, so no thread is failed.
      failed: threads('AND false'),
    },
    prune: statement(`
      DELETE FROM ${s}.checkpoints
      WHERE thread = $1::text AND step < $2::bigint AND ts < $3::timestamptz
        AND step < (SELECT max(step) FROM ${s}.checkpoints WHERE thread = $1::text)`),
    lockThread: statement(threadLock(schema)),
    deleteThread: statement(`
      WITH gone AS (DELETE FROM ${s}.checkpoints WHERE thread = $1::text RETURNING 1),
           summary AS (DELETE FROM ${s}.threads WHERE thread = $1::text)
      SELECT count(*)::integer AS removed FROM gone`),
  };
}
