import { dropSchema, uniqueSchema } from '@flow/test-db';
import type { BenchContext } from '../context.js';
import type { ChatState } from '../data.js';
import { newCounters } from './counters.js';
import { countedPool, ident, schemaBytes } from './postgres-admin.js';
import type { StoreSubject, SubjectFactory } from './types.js';

/**
 * The Postgres floor: one named (so prepared once per connection) `INSERT … ON CONFLICT DO UPDATE` of
 * (thread, step, jsonb), autocommitted. Reads go through the primary key and return `state::text`, parsed
 * once; the thread scan is a `GROUP BY` on the primary key, which never reads state.
 *
 * `threadIndex`: the listing floor. The put's one statement also upserts (thread, latest step) into a table
 * of its own, and the thread scan is a plain `SELECT thread, step` of that table: the cheapest listing there is.
 */
export function rawPostgres(ctx: BenchContext, url: string, threadIndex = false): SubjectFactory {
  return {
    side: 'raw',
    label: threadIndex
      ? 'INSERT … ON CONFLICT, plain scan of a (thread, step) table'
      : 'INSERT … ON CONFLICT (prepared, jsonb)',
    async open(): Promise<StoreSubject> {
      const schema = uniqueSchema();
      const counters = newCounters();
      const pool = countedPool(url, ctx.options.sizes['pg-pool'], counters);
      const table = `${ident(schema)}.checkpoints`;
      const threads = `${ident(schema)}.threads`;
      const close = ctx.track(async () => {
        await pool.end();
        await dropSchema(url, schema);
      });
      await pool.query(`CREATE SCHEMA ${ident(schema)}`);
      await pool.query(`CREATE TABLE ${table} (
        thread text COLLATE "C" NOT NULL, step integer NOT NULL, state jsonb NOT NULL, PRIMARY KEY (thread, step))`);
      if (threadIndex) {
        await pool.query(
          `CREATE TABLE ${threads} (thread text COLLATE "C" PRIMARY KEY, step integer NOT NULL)`,
        );
      }
      const upsert = `INSERT INTO ${table} (thread, step, state) VALUES ($1, $2, $3)
               ON CONFLICT (thread, step) DO UPDATE SET state = EXCLUDED.state`;
      const put = threadIndex
        ? {
            name: 'raw_put_indexed',
            text: `WITH c AS (${upsert}) INSERT INTO ${threads} AS t (thread, step) VALUES ($1, $2)
                   ON CONFLICT (thread) DO UPDATE SET step = GREATEST(t.step, EXCLUDED.step)`,
          }
        : { name: 'raw_put', text: upsert };
      const get = {
        name: 'raw_get',
        text: `SELECT state::text AS state FROM ${table} WHERE thread = $1 ORDER BY step DESC LIMIT 1`,
      };
      const list = {
        name: 'raw_list',
        text: `SELECT state::text AS state FROM ${table} WHERE thread = $1 ORDER BY step DESC LIMIT $2`,
      };
      const scan = threadIndex
        ? { name: 'raw_scan_indexed', text: `SELECT thread, step FROM ${threads}` }
        : {
            name: 'raw_scan',
            text: `SELECT thread, max(step) AS step FROM ${table} GROUP BY thread ORDER BY thread`,
          };
      return {
        async put(thread: string, step: number, state: ChatState) {
          await pool.query({ ...put, values: [thread, step, JSON.stringify(state)] });
        },
        async getLatest(thread: string) {
          const { rows } = await pool.query<{ state: string }>({ ...get, values: [thread] });
          if (rows[0] === undefined) throw new Error(`raw postgres: thread ${thread} not found`);
          return JSON.parse(rows[0].state);
        },
        async list(thread: string, limit: number) {
          const { rows } = await pool.query<{ state: string }>({ ...list, values: [thread, limit] });
          return rows.map((r) => JSON.parse(r.state)).length;
        },
        listThreads: async () => (await pool.query(scan)).rows.length,
        storedBytes: () => schemaBytes(url, schema),
        counters,
        close,
      };
    },
  };
}
