import { PostgresCheckpointer } from '@flow/checkpoint-postgres';
import type { Checkpointer, Serializer } from '@flow/core';
import { dropSchema, uniqueSchema } from '@flow/test-db';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type { BenchContext } from '../context.js';
import { CommitFloorSaver } from './commit-floor.js';
import { newCounters } from './counters.js';
import { flowSubject } from './flow-subject.js';
import { langgraphSubject } from './langgraph-subject.js';
import { adminQuery, countedPool, ident, schemaBytes } from './postgres-admin.js';
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

/** W8's commit floor on a fresh schema: one single-row INSERT (its own transaction) per put, on a counted pool. */
async function openCommitFloor(ctx: BenchContext, url: string): Promise<OpenedStore<BaseCheckpointSaver>> {
  const schema = uniqueSchema();
  const counters = newCounters();
  const pool = countedPool(url, ctx.options.sizes['pg-pool'], counters);
  const close = ctx.track(async () => {
    await pool.end();
    await dropSchema(url, schema);
  });
  await adminQuery(url, `CREATE SCHEMA ${ident(schema)}`);
  await adminQuery(
    url,
    `CREATE TABLE ${ident(schema)}.checkpoints (thread text NOT NULL, id text NOT NULL, data jsonb NOT NULL, PRIMARY KEY (thread, id))`,
  );
  const text = `INSERT INTO ${ident(schema)}.checkpoints (thread, id, data) VALUES ($1, $2, $3)`;
  const store = new CommitFloorSaver(async (thread, id, data) => {
    await pool.query({ name: `commit_floor_${schema}`, text, values: [thread, id, data] });
  });
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
    commitFloor: () => openCommitFloor(ctx, url),
    notes: [
      `postgres: every side gets its own pg.Pool of ${ctx.options.sizes['pg-pool']} connections and its own schema; ` +
        'statements are counted by wrapping each pooled client’s query().',
    ],
  };
}
