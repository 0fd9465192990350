import { quoteLiteral } from './quote.js';
import { type Statement, statement } from './statements.js';

/**
 * The statement of a group of whole-state puts without writes, one per thread (`PutGroup` never puts two puts
 * of one thread in a group): every put's columns as one array parameter each, in the order of `GROUP_COLUMNS`;
 * `next` is each frontier as array literal text (`arrayLiteral`); `expected` is NULL for an unconditional put, 0 for `ifRevision: 0`, n for `ifRevision: n`. It takes every
 * thread's lock in one order (so two groups cannot deadlock), then writes each row as the single put's
 * statement would: an upsert, an insert only when absent, or an update only at revision n; the summary moves
 * when the step is the thread's highest. It answers each put's position and its new revision, or NULL when
 * its condition did not hold (nothing of that put written). One statement: one transaction, one commit.
 */
export function groupPutStatement(schema: string, s: string): Statement {
  const lockKey = `hashtextextended(${quoteLiteral(`${schema}.`)} || thread, 0)`;
  return statement(`
    WITH input AS (
      SELECT * FROM unnest($1::text[], $2::integer[], $3::text[], $4::text[], $5::boolean[], $6::text[],
        $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::bigint[])
        WITH ORDINALITY AS i(thread, step, state, next, interrupted, interrupt_node, interrupt_payload, ts,
          error, meta, status, info, expected, ord)
    ), locked AS (
      SELECT count(pg_advisory_xact_lock(k)) AS n FROM (SELECT ${lockKey} AS k FROM input ORDER BY 1) AS l
    ), upserted AS (
      ${insertRows(s, 'i.expected IS NULL')}
      ON CONFLICT (thread, step) DO UPDATE SET
        revision = c.revision + 1, state = EXCLUDED.state, skeleton = NULL, next = EXCLUDED.next,
        interrupted = EXCLUDED.interrupted, interrupt_node = EXCLUDED.interrupt_node,
        interrupt_payload = EXCLUDED.interrupt_payload, ts = EXCLUDED.ts, error = EXCLUDED.error,
        meta = EXCLUDED.meta, refs = NULL
      RETURNING c.thread, c.revision
    ), absent AS (
      ${insertRows(s, 'i.expected = 0')}
      ON CONFLICT (thread, step) DO NOTHING
      RETURNING c.thread, c.revision
    ), updated AS (
      UPDATE ${s}.checkpoints AS c SET
        revision = c.revision + 1, state = i.state::jsonb, skeleton = NULL,
        next = i.next::text[], interrupted = i.interrupted,
        interrupt_node = i.interrupt_node, interrupt_payload = i.interrupt_payload::jsonb,
        ts = i.ts::timestamptz, error = i.error, meta = i.meta, refs = NULL
      FROM input AS i
      WHERE i.expected > 0 AND c.thread = i.thread AND c.step = i.step AND c.revision = i.expected
        AND (SELECT n FROM locked) >= 0
      RETURNING c.thread, c.revision
    ), written AS (
      SELECT * FROM upserted UNION ALL SELECT * FROM absent UNION ALL SELECT * FROM updated
    ), summary AS (
      INSERT INTO ${s}.threads AS t (thread, latest_step, next, interrupted, error, status, ts, info)
      SELECT i.thread, i.step, i.next::text[], i.interrupted, i.error,
        i.status, i.ts::timestamptz, i.info
      FROM input AS i JOIN written AS w ON w.thread = i.thread
      ON CONFLICT (thread) DO UPDATE SET
        latest_step = EXCLUDED.latest_step, next = EXCLUDED.next, interrupted = EXCLUDED.interrupted,
        error = EXCLUDED.error, status = EXCLUDED.status, ts = EXCLUDED.ts, info = EXCLUDED.info
      WHERE EXCLUDED.latest_step >= t.latest_step
    )
    SELECT i.ord::integer AS ord, w.revision::float8 AS revision
    FROM input AS i LEFT JOIN written AS w ON w.thread = i.thread
    ORDER BY i.ord`);
}

/** Inserts the rows of `input` that `where` selects, after the locks (the first row of one INSERT … SELECT). */
function insertRows(s: string, where: string): string {
  return `INSERT INTO ${s}.checkpoints AS c
        (thread, step, revision, state, next, interrupted, interrupt_node, interrupt_payload, ts, error, meta,
         refs)
      SELECT i.thread, i.step, 1, i.state::jsonb, i.next::text[],
        i.interrupted, i.interrupt_node, i.interrupt_payload::jsonb, i.ts::timestamptz, i.error, i.meta, NULL
      FROM input AS i
      WHERE ${where} AND (SELECT n FROM locked) >= 0`;
}

/** The array parameters of `groupPutStatement`, one value per put, in this order. */
export const GROUP_COLUMNS = 13;

/** `values` as Postgres array literal text (`{"a","b \\"c\\""}`), the form `text[]` reads. */
export function arrayLiteral(values: readonly string[]): string {
  let out = '{';
  for (const [i, v] of values.entries()) out += `${i === 0 ? '' : ','}"${v.replace(/[\\"]/g, '\\$&')}"`;
  return `${out}}`;
}
