import { createHash } from 'node:crypto';
import type { ThreadStatus } from '@flow/core';
import type { PgQueryConfig } from './driver.js';
import { quoteIdent, quoteLiteral } from './quote.js';
import { epochMs } from './timestamp.js';

/** A named prepared statement: the name is a hash of the text, so one pool can serve many schemas. */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

export function statement(text: string): Statement {
  // Postgres truncates names at 63 bytes; a short hash keeps distinct texts apart.
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 24);
  return { name: `flow_pg_${hash}`, text: text.replace(/\s+/g, ' ').trim() };
}

/**
 * A query config running `statement` with `values`: named (prepared once per connection), or, with
 * `prepared: false`, unnamed, parsed on every call — what a pooler that hands each transaction a different
 * server connection (PgBouncer in transaction mode) needs, since a named statement lives on one connection.
 */
export function bind(statement: Statement, values: unknown[], prepared = true): PgQueryConfig {
  return prepared ? { name: statement.name, text: statement.text, values } : { text: statement.text, values };
}

/** Columns of a checkpoint as read back: JSONB as text (parsed once, by the serializer), ts as epoch ms. */
const RECORD_COLUMNS = `step, revision::float8 AS revision, coalesce(skeleton, state::text) AS state,
  array_to_json(next)::text AS next, interrupted, interrupt_node,
  interrupt_payload::text AS interrupt_payload, ${epochMs('ts')} AS ts, error, meta,
  refs`;

/**
 * The same fields for a read of one checkpoint alone (getLatest, getStep), in two columns: the state, and the
 * others as one JSON array (`HeadRow`, rows.ts) that the client parses once. pg spends client CPU on every
 * column of every row (a parser and a field each): measured in the bench README.
 */
const HEAD_COLUMNS = `json_build_array(step, revision::float8, array_to_json(next), interrupted, interrupt_node,
  interrupt_payload::text, ${epochMs('ts')}, error, meta, refs)::text AS head, coalesce(skeleton, state::text) AS state`;

/** The same, as the first half of a `withChunks` read, whose rows are checkpoints or chunks. */
const CHECKPOINT_COLUMNS = `${RECORD_COLUMNS}, NULL::text AS chunk`;

/** A chunk as a row of the same shape: its id in `chunk`, its data in `state`, every other column NULL. */
const CHUNK_COLUMNS = `NULL::integer, NULL::float8, ch.data, NULL::text, NULL::boolean, NULL::text, NULL::text,
  NULL::float8, NULL::text, NULL::text, NULL::text, ch.id`;

/**
 * A read of checkpoints (`from`: the rest of a SELECT on the checkpoints table of thread $1), followed in the
 * same statement by the chunks their refs name, each once: one round trip for any number of records. The
 * chunks' half reads only the refs again (no copy of the states), and looks the ids up in the primary key.
 */
function withChunks(s: string, from: string): string {
  return `
    (SELECT ${CHECKPOINT_COLUMNS} FROM ${from})
    UNION ALL
    SELECT ${CHUNK_COLUMNS} FROM ${s}.chunks AS ch
    WHERE ch.thread = $1::text
      AND ch.id = ANY (ARRAY(SELECT unnest(string_to_array(r.refs, ' ')) FROM (SELECT refs FROM ${from}) AS r))`;
}

/** A thread as listThreads reads it: its id and the summary text core decodes (two columns, like a bare scan). */
const THREAD_COLUMNS = 'thread, info';

/**
 * Takes the thread's transaction-scoped advisory lock, keyed on a 64-bit hash of "schema.thread". Every put,
 * putWrites and deleteThread takes it before touching a row, so writers of one thread run one at a time, in
 * one lock order (no deadlocks), and a delete never misses a row whose write was in flight. Unlike a row lock
 * it exists before the thread's first row and after its deletion. `$1` is the thread id.
 */
function threadLock(schema: string): string {
  return `SELECT ${lockCall(schema)}`;
}

function lockCall(schema: string): string {
  return `pg_advisory_xact_lock(hashtextextended(${quoteLiteral(`${schema}.`)} || $1::text, 0))`;
}

/**
 * The thread's lock as the qual of the one row a whole-state insert reads (`SELECT … WHERE`, no FROM): taken
 * before the row reaches the insert, as `locked` would, without that CTE, its scan and its count (23k of the
 * put's 525k server instructions, callgrind).
 */
function lockInRow(schema: string): string {
  return `${lockCall(schema)} IS NOT NULL`;
}

/**
 * Parameters of every put: $1 thread, $2 step, $3 state, $4 next, $5 interrupted, $6 interrupt node,
 * $7 interrupt payload, $8 ts, $9 error, $10 meta, $11 the thread's status (core's `statusOf`), $12 its listing
 * summary (core's `threadSummaryOf`); a put of a state that references chunks adds $13 its refs (joined by
 * spaces, as the column keeps them), $14 the ids
 * and $15 the data of the chunks new with it; then, for the conditional update, the expected revision; then,
 * for a put with writes, three arrays of nodes, keys and values.
 */
const PUT_PARAMS = 12;
const CHUNK_PARAMS = 3;

/**
 * Inserts writes for ($1, `step`) from three parallel arrays starting at parameter `$first`, unless `guard` is
 * false. A (node, key) already stored keeps its value; within one batch the first occurrence wins, because
 * the insert's own rows conflict with each other in array order.
 */
function insertWrites(s: string, first: number, guard: string, step = '$2'): string {
  return `
    INSERT INTO ${s}.writes (thread, step, node, key, value)
    SELECT $1::text, ${step}::integer, w.node, w.key, w.value::jsonb
    FROM unnest($${first}::text[], $${first + 1}::text[], $${first + 2}::text[]) WITH ORDINALITY AS w(node, key, value, i)
    WHERE ${guard}
    ORDER BY w.i
    ON CONFLICT (thread, step, node, key) DO NOTHING`;
}

/**
 * One put: take the thread's lock, write the checkpoint, move the summary when this is now the highest step,
 * and (with `own` writes) store the step's writes only if the checkpoint was written — one statement, one
 * transaction, one round trip. `earlier` writes are another step's (`$from`, then three arrays), stored
 * whether or not the checkpoint is: a `putWrites` that travels with the put (see `PostgresCheckpointer`). The write depends on the lock's result, so Postgres runs the lock first.
 * `linear` adds the chunks: the write also waits for `complete`, and the new chunks are stored with it.
 */
function put(
  schema: string,
  s: string,
  write: string,
  linear: boolean,
  writes: WritesParam,
  lockedInRow = false,
): string {
  const lockOnly = lockedInRow ? lockInRow(schema) : '(SELECT count(*) FROM locked) >= 0';
  const alsoWrites =
    writes === undefined
      ? ''
      : writes.kind === 'own'
        ? `, w AS (${insertWrites(s, writes.from, 'EXISTS (SELECT 1 FROM cp)')})`
        : `, ew AS (${insertWrites(s, writes.from + 1, lockOnly, `$${writes.from}`)})`;
  return `
    WITH ${lockedInRow ? '' : `locked AS (${threadLock(schema)}),`} ${linear ? refsCheck(s) : ''} cp AS (
      ${write}
      RETURNING c.revision
    ), summary AS (
      INSERT INTO ${s}.threads AS t (thread, latest_step, next, interrupted, error, status, ts, info)
      SELECT $1::text, $2::integer, $4::text[], $5::boolean, $9::text, $11::text, $8::timestamptz, $12::text
      FROM cp
      ON CONFLICT (thread) DO UPDATE SET
        latest_step = EXCLUDED.latest_step, next = EXCLUDED.next, interrupted = EXCLUDED.interrupted,
        error = EXCLUDED.error, status = EXCLUDED.status, ts = EXCLUDED.ts, info = EXCLUDED.info
      WHERE EXCLUDED.latest_step >= t.latest_step
    )${linear ? `, chunks AS (${insertChunks(s)})` : ''}${alsoWrites}
    ${
      linear
        ? `SELECT (SELECT revision::float8 FROM cp) AS revision,
            (SELECT min(n.id) FROM needed n WHERE NOT (SELECT ok FROM complete)
              AND n.id NOT IN (SELECT id FROM present)) AS missing`
        : 'SELECT revision::float8 AS revision FROM cp'
    }`;
}

/**
 * Whether every ref ($13) that is not a chunk of this put ($14) is stored, as `complete.ok` (when not, the
 * statement answers one missing id). The statement's
 * snapshot predates the thread lock, so a plain read could still see chunks that a prune or deleteThread
 * holding the lock removed meanwhile; a row-locking read (FOR KEY SHARE) sees the latest committed rows, and
 * holds them until COMMIT.
 */
function refsCheck(s: string): string {
  return `needed AS (
      SELECT DISTINCT r.id FROM unnest(string_to_array($13::text, ' ')) AS r(id) WHERE r.id <> ALL ($14::text[])
    ), present AS (
      SELECT ch.id FROM ${s}.chunks AS ch
      WHERE ch.thread = $1::text AND ch.id IN (SELECT id FROM needed) AND (SELECT count(*) FROM locked) >= 0
      FOR KEY SHARE OF ch
    ), complete AS (
      SELECT (SELECT count(*) FROM present) = (SELECT count(*) FROM needed) AS ok
    ),`;
}

/** Stores the put's new chunks when the checkpoint was written; an id already stored keeps its data. */
function insertChunks(s: string): string {
  return `
    INSERT INTO ${s}.chunks (thread, id, data)
    SELECT $1::text, n.id, n.data FROM unnest($14::text[], $15::text[]) AS n(id, data)
    WHERE EXISTS (SELECT 1 FROM cp)
    ON CONFLICT (thread, id) DO NOTHING`;
}

/** The row a put writes, guarded: after the lock, and for `linear` only when its refs are complete. */
function guard(linear: boolean): string {
  return linear ? '(SELECT ok FROM complete)' : '(SELECT count(*) FROM locked) >= 0';
}

/** $3 as `state, skeleton`: a linear state's skeleton as text (state NULL), a whole state as JSONB. */
function stateValues(linear: boolean): string {
  return linear ? 'NULL::jsonb, $3::text' : '$3::jsonb, NULL::text';
}

/** `guarded`: the row's qual, by default `guard(linear)` (after `locked`). */
function insert(s: string, linear: boolean, onConflict: string, guarded = guard(linear)): string {
  return `
    INSERT INTO ${s}.checkpoints AS c
      (thread, step, revision, state, skeleton, next, interrupted, interrupt_node, interrupt_payload, ts, error,
       meta, refs)
    SELECT $1::text, $2::integer, 1, ${stateValues(linear)}, $4::text[], $5::boolean, $6::text, $7::jsonb,
      $8::timestamptz, $9::text, $10::text, ${linear ? '$13::text' : 'NULL'}
    WHERE ${guarded}
    ${onConflict}`;
}

const OVERWRITE = `
  revision = c.revision + 1, state = EXCLUDED.state, skeleton = EXCLUDED.skeleton, next = EXCLUDED.next,
  interrupted = EXCLUDED.interrupted, interrupt_node = EXCLUDED.interrupt_node,
  interrupt_payload = EXCLUDED.interrupt_payload, ts = EXCLUDED.ts, error = EXCLUDED.error, meta = EXCLUDED.meta,
  refs = EXCLUDED.refs`;

function updateIfRevision(s: string, linear: boolean): string {
  const expected = PUT_PARAMS + (linear ? CHUNK_PARAMS : 0) + 1;
  return `UPDATE ${s}.checkpoints AS c SET
      revision = c.revision + 1, state = ${linear ? 'NULL' : '$3::jsonb'}, skeleton = ${linear ? '$3::text' : 'NULL'},
      next = $4::text[], interrupted = $5::boolean,
      interrupt_node = $6::text, interrupt_payload = $7::jsonb, ts = $8::timestamptz, error = $9::text,
      meta = $10::text, refs = ${linear ? '$13::text' : 'NULL'}
    WHERE c.thread = $1::text AND c.step = $2::integer AND c.revision = $${expected}::bigint
      AND ${guard(linear)}`;
}

/** The three forms of a put: unconditional, `ifRevision: 0` and `ifRevision: n`. */
export interface PutStatements {
  /** Unconditional upsert: revision 1 when new, else old + 1. */
  put: Statement;
  /** `ifRevision: 0`: inserts only when nothing is stored at (thread, step). */
  putIfAbsent: Statement;
  /** `ifRevision: n > 0`: updates only when the stored revision is n. */
  putIfRevision: Statement;
}

/** The columns of a lease as read back, expiry as epoch ms. */
const LEASE_COLUMNS = `owner, host, pid, ${epochMs('expires_at')} AS expires_at`;

/** The puts of one kind of state: alone, or also storing the step's writes (nodes, keys, values arrays). */
export interface PutForms extends PutStatements {
  withWrites: PutStatements;
  /** Also storing writes of another step of the thread: its step, then nodes, keys and values arrays. */
  withEarlierWrites: PutStatements;
}

/** Every statement of one schema. */
export interface Statements extends PutForms {
  /** The puts of a state that references chunks ($13 refs joined by spaces, $14 new chunk ids, $15 their data). */
  linear: PutForms;
  /** putWrites: $3 nodes, $4 keys, $5 values, under the thread's lock. */
  putWrites: Statement;
  /** getWrites: the writes of ($1, $2) in code-point order of (node, key). */
  getWrites: Statement;
  /** The stored revision of (thread, step), read only after a conditional put wrote nothing. */
  revisionOf: Statement;
  /**
   * The latest checkpoint of $1 alone: one index probe, no chunk lookup. A whole state (the usual record)
   * needs nothing more; a row with refs is read again by `getLatestWithChunks`.
   */
  getLatest: Statement;
  /** Checkpoint ($1, $2) alone, as `getLatest`; a row with refs is read again by `getStepWithChunks`. */
  getStep: Statement;
  getLatestWithChunks: Statement;
  getStepWithChunks: Statement;
  /** $2 exclusive upper bound of step (bigint), $3 limit or null. */
  list: Statement;
  /** $1 exclusive lower bound of thread ('' for none), $2 limit or null; one per status filter. */
  listThreads: Record<'all' | ThreadStatus, Statement>;
  /**
   * $2 exclusive step bound, $3 exclusive ts bound; keeps the thread's highest step; drops their writes and
   * every chunk of the thread no remaining checkpoint references. Runs under the thread's lock, in a
   * transaction of its own, so it sees every put that committed before it.
   */
  prune: Statement;
  /** Takes the thread's advisory lock (inside the transactions of deleteThread and prune). */
  lockThread: Statement;
  /** Deletes the thread's checkpoints, summary, writes, lease and chunks; resolves with the count of checkpoints. */
  deleteThread: Statement;
  /**
   * Takes the lease of $1 for $2 (host $3, pid $4) until the server's clock + $5 ms when it is free, expired,
   * $2's already, or held by $6 (or '' for none). Answers the lease now stored, with `acquired`.
   */
  acquireLease: Statement;
  /** The lease of $1, live or not (only after acquireLease found another holder). */
  leaseHolder: Statement;
  /** Extends $2's live lease on $1 to now + $3 ms; a row when it did. */
  renewLease: Statement;
  /** Removes the lease of $1 when $2 holds it. */
  releaseLease: Statement;
  /** The live lease of $1. */
  getLease: Statement;
}

/** Where a put's extra writes start among its parameters, and whose they are. */
type WritesParam = { kind: 'own' | 'earlier'; from: number } | undefined;

function putStatements(
  schema: string,
  s: string,
  linear: boolean,
  writes: 'own' | 'earlier' | undefined,
): PutStatements {
  const params = PUT_PARAMS + (linear ? CHUNK_PARAMS : 0);
  const from = (conditional: boolean): WritesParam =>
    writes === undefined ? undefined : { kind: writes, from: params + 1 + (conditional ? 1 : 0) };
  const upsert = `ON CONFLICT (thread, step) DO UPDATE SET ${OVERWRITE}`;
  // A whole state's insert takes the lock in its row (`lockInRow`); a linear one reads chunks after the lock
  // first, and the update at a revision would read its row before the lock, so both keep `locked`.
  const inRow = !linear;
  const inserting = (onConflict: string) =>
    statement(
      put(
        schema,
        s,
        insert(s, linear, onConflict, inRow ? lockInRow(schema) : guard(linear)),
        linear,
        from(false),
        inRow,
      ),
    );
  return {
    put: inserting(upsert),
    putIfAbsent: inserting('ON CONFLICT (thread, step) DO NOTHING'),
    putIfRevision: statement(put(schema, s, updateIfRevision(s, linear), linear, from(true))),
  };
}

function putForms(schema: string, s: string, linear: boolean): PutForms {
  return {
    ...putStatements(schema, s, linear, undefined),
    withWrites: putStatements(schema, s, linear, 'own'),
    withEarlierWrites: putStatements(schema, s, linear, 'earlier'),
  };
}

/** Builds the statements of `schema` (validated by the caller; quoted here). */
export function buildStatements(schema: string): Statements {
  const s = quoteIdent(schema);
  const threads = (filter: string) =>
    statement(`
      SELECT ${THREAD_COLUMNS} FROM ${s}.threads
      WHERE thread > $1::text COLLATE "C" ${filter}
      ORDER BY thread LIMIT $2::bigint`);
  const latest = `${s}.checkpoints WHERE thread = $1::text ORDER BY step DESC LIMIT 1`;
  const atStep = `${s}.checkpoints WHERE thread = $1::text AND step = $2::integer`;
  // The server's clock, read when the statement runs (not when its transaction began).
  const now = 'clock_timestamp()';
  return {
    ...putForms(schema, s, false),
    linear: putForms(schema, s, true),
    putWrites: statement(`
      WITH locked AS (${threadLock(schema)})
      ${insertWrites(s, 3, '(SELECT count(*) FROM locked) >= 0')}`),
    getWrites: statement(`
      SELECT node, key, value::text AS value FROM ${s}.writes
      WHERE thread = $1::text AND step = $2::integer ORDER BY node, key`),
    revisionOf: statement(
      `SELECT revision::float8 AS revision FROM ${s}.checkpoints WHERE thread = $1::text AND step = $2::integer`,
    ),
    getLatest: statement(`SELECT ${HEAD_COLUMNS} FROM ${latest}`),
    getStep: statement(`SELECT ${HEAD_COLUMNS} FROM ${atStep}`),
    getLatestWithChunks: statement(withChunks(s, latest)),
    getStepWithChunks: statement(withChunks(s, atStep)),
    list: statement(
      withChunks(
        s,
        `${s}.checkpoints WHERE thread = $1::text AND step < $2::bigint ORDER BY step DESC LIMIT $3::bigint`,
      ),
    ),
    listThreads: {
      all: threads(''),
      // Literally `AND interrupted`, so the planner can use the partial index.
      interrupted: threads('AND interrupted'),
      running: threads(`AND status = 'running'`),
      done: threads(`AND status = 'done'`),
      failed: threads(`AND status = 'failed'`),
    },
    prune: statement(`
      WITH gone AS (
        DELETE FROM ${s}.checkpoints
        WHERE thread = $1::text AND step < $2::bigint AND ts < $3::timestamptz
          AND step < (SELECT max(step) FROM ${s}.checkpoints WHERE thread = $1::text)
        RETURNING step
      ), writes AS (
        DELETE FROM ${s}.writes WHERE thread = $1::text AND step IN (SELECT step FROM gone)
      ), live AS (
        SELECT unnest(string_to_array(refs, ' ')) AS id FROM ${s}.checkpoints
        WHERE thread = $1::text AND refs IS NOT NULL AND step NOT IN (SELECT step FROM gone)
      ), unreferenced AS (
        DELETE FROM ${s}.chunks AS ch
        WHERE ch.thread = $1::text AND NOT EXISTS (SELECT 1 FROM live WHERE live.id = ch.id)
      )
      SELECT count(*)::integer AS removed FROM gone`),
    lockThread: statement(threadLock(schema)),
    deleteThread: statement(`
      WITH gone AS (DELETE FROM ${s}.checkpoints WHERE thread = $1::text RETURNING 1),
           summary AS (DELETE FROM ${s}.threads WHERE thread = $1::text),
           writes AS (DELETE FROM ${s}.writes WHERE thread = $1::text),
           lease AS (DELETE FROM ${s}.leases WHERE thread = $1::text),
           chunks AS (DELETE FROM ${s}.chunks WHERE thread = $1::text)
      SELECT count(*)::integer AS removed FROM gone`),
    acquireLease: statement(`
      INSERT INTO ${s}.leases AS l (thread, owner, host, pid, expires_at)
      VALUES ($1::text, $2::text, $3::text, $4::integer, ${now} + $5::integer * interval '1 millisecond')
      ON CONFLICT (thread) DO UPDATE SET
        owner = EXCLUDED.owner, host = EXCLUDED.host, pid = EXCLUDED.pid, expires_at = EXCLUDED.expires_at
      WHERE l.expires_at <= ${now} OR l.owner = EXCLUDED.owner OR l.owner = $6::text
      RETURNING ${LEASE_COLUMNS}`),
    leaseHolder: statement(`SELECT ${LEASE_COLUMNS} FROM ${s}.leases WHERE thread = $1::text`),
    renewLease: statement(`
      UPDATE ${s}.leases SET expires_at = ${now} + $3::integer * interval '1 millisecond'
      WHERE thread = $1::text AND owner = $2::text AND expires_at > ${now}
      RETURNING 1 AS renewed`),
    releaseLease: statement(`DELETE FROM ${s}.leases WHERE thread = $1::text AND owner = $2::text`),
    getLease: statement(
      `SELECT ${LEASE_COLUMNS} FROM ${s}.leases WHERE thread = $1::text AND expires_at > ${now}`,
    ),
  };
}
