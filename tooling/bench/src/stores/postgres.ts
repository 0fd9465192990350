import { PostgresCheckpointer } from '@flow/checkpoint-postgres';
import type { Checkpointer, Serializer } from '@flow/core';
import { dropSchema, uniqueSchema } from '@flow/test-db';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type { BenchContext } from '../context.js';
import { newCounters } from './counters.js';
import { flowSubject } from './flow-subject.js';
import { langgraphSubject } from './langgraph-subject.js';
import { countedPool, schemaBytes } from './postgres-admin.js';
import { rawPostgres } from './postgres-raw.js';
import type { BackendSuite, OpenedStore } from './types.js';

/** @flow's `PostgresCheckpointer` on a fresh schema, given a counted pool of the same size as the floor's. */
async function openFlow(
  ctx: BenchContext,
  url: string,
  serializer?: Serializer,
  stateStorage?: 'whole',
): Promise<OpenedStore<Checkpointer>> {
  const schema = uniqueSchema();
  const counters = newCounters();
  const pool = countedPool(url, ctx.options.sizes['pg-pool'], counters);
  const store = new PostgresCheckpointer(pool, {
    schema,
    ...(serializer === undefined ? {} : { serializer }),
    ...(stateStorage === undefined ? {} : { stateStorage }),
  });
  const close = ctx.track(async () => {
    await store.close();
    await pool.end();
    await dropSchema(url, schema);
  });
  await store.setup();
  return { store, counters, storedBytes: () => schemaBytes(url, schema), close };
}

/** LangGraph.js's `PostgresSaver` on a fresh schema, given a counted pool of the same size. */
async function openLangGraph(ctx: BenchContext, url: string): Promise<OpenedStore<BaseCheckpointSaver>> {
  const schema = uniqueSchema();
  const counters = newCounters();
  const pool = countedPool(url, ctx.options.sizes['pg-pool'], counters);
  const store = new PostgresSaver(pool, undefined, { schema });
  const close = ctx.track(async () => {
    await pool.end();
    await dropSchema(url, schema);
  });
  await store.setup();
  return { store, counters, storedBytes: () => schemaBytes(url, schema), close };
}

/** The Postgres comparison: the bare driver, `PostgresCheckpointer`, and LangGraph's `PostgresSaver`. */
export async function postgresSuite(
  ctx: BenchContext,
): Promise<BackendSuite<Checkpointer, BaseCheckpointSaver>> {
  const url = ctx.postgresUrl;
  if (url === undefined) throw new Error('no Postgres server resolved');
  return {
    id: 'postgres',
    subjects: [
      rawPostgres(ctx, url),
      flowSubject('PostgresCheckpointer', () => openFlow(ctx, url)),
      langgraphSubject('PostgresSaver', () => openLangGraph(ctx, url)),
    ],
    listingFloor: rawPostgres(ctx, url, true),
    flowStore: () => openFlow(ctx, url),
    flowStoreWith: (serializer) => () => openFlow(ctx, url, serializer),
    flowStoreWhole: () => openFlow(ctx, url, undefined, 'whole'),
    langgraphStore: () => openLangGraph(ctx, url),
    notes: [
      `postgres: every side gets its own pg.Pool of ${ctx.options.sizes['pg-pool']} connections and its own schema; ` +
        'statements are counted by wrapping each pooled client’s query().',
    ],
  };
}
