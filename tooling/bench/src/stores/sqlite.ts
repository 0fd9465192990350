import { SqliteCheckpointer, type SqliteCheckpointerOptions } from '@flow/checkpoint-sqlite';
import type { Checkpointer } from '@flow/core';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import Database from 'better-sqlite3';
import type { BenchContext } from '../context.js';
import { CommitFloorSaver } from './commit-floor.js';
import { flowSubject } from './flow-subject.js';
import { langgraphSubject } from './langgraph-subject.js';
import { removeSqliteFiles, sqliteBytes, synchronousName } from './sqlite-files.js';
import { rawSqlite } from './sqlite-raw.js';
import type { BackendSuite, OpenedStore } from './types.js';

/** @flow's `SqliteCheckpointer` on a fresh temp file, with its default settings unless `options` says. */
async function openFlow(
  ctx: BenchContext,
  options?: SqliteCheckpointerOptions,
): Promise<OpenedStore<Checkpointer>> {
  const path = ctx.tempPath('flow');
  const store = new SqliteCheckpointer(path, options);
  await store.setup();
  return {
    store,
    counters: undefined,
    storedBytes: async () => sqliteBytes(path),
    close: ctx.track(async () => {
      await store.close();
      removeSqliteFiles(path);
    }),
  };
}

/**
 * LangGraph.js's `SqliteSaver` on a fresh temp file, as `SqliteSaver.fromConnString(path)` makes it, but
 * with `synchronous = FULL` like the other two sides: its own default is the connection's, which would
 * compare fsync settings rather than code.
 */
async function openLangGraph(
  ctx: BenchContext,
  synchronous = 'FULL',
): Promise<OpenedStore<BaseCheckpointSaver>> {
  const path = ctx.tempPath('langgraph');
  const db = new Database(path);
  const store = new SqliteSaver(db);
  // Its setup() is protected and runs on first use: a read creates the tables and switches to WAL.
  await store.getTuple({ configurable: { thread_id: 'setup' } });
  if (synchronous) db.pragma(`synchronous = ${synchronous}`);
  return {
    store,
    counters: undefined,
    storedBytes: async () => sqliteBytes(path),
    close: ctx.track(async () => {
      db.close();
      removeSqliteFiles(path);
    }),
  };
}

/** W8's commit floor on a fresh temp file: WAL, synchronous=FULL, one autocommitted INSERT per put. */
async function openCommitFloor(ctx: BenchContext): Promise<OpenedStore<BaseCheckpointSaver>> {
  const path = ctx.tempPath('commit-floor');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(
    'CREATE TABLE checkpoints (thread TEXT NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (thread, id))',
  );
  const insert = db.prepare('INSERT INTO checkpoints (thread, id, data) VALUES (?, ?, ?)');
  return {
    store: new CommitFloorSaver(async (thread, id, text) => {
      insert.run(thread, id, text);
    }),
    counters: undefined,
    storedBytes: async () => sqliteBytes(path),
    close: ctx.track(async () => {
      db.close();
      removeSqliteFiles(path);
    }),
  };
}

/** The SQLite comparison: the bare driver, `SqliteCheckpointer`, and LangGraph's `SqliteSaver`. */
export async function sqliteSuite(
  ctx: BenchContext,
): Promise<BackendSuite<Checkpointer, BaseCheckpointSaver>> {
  // LangGraph sets no `synchronous`; read what its connection really runs with.
  const lgProbe = await openLangGraph(ctx, '');
  const lgSync = synchronousName((lgProbe.store as SqliteSaver).db);
  await lgProbe.close();
  return {
    id: 'sqlite',
    subjects: [
      rawSqlite(ctx),
      flowSubject('SqliteCheckpointer', () => openFlow(ctx)),
      langgraphSubject('SqliteSaver', () => openLangGraph(ctx)),
    ],
    flowStore: () => openFlow(ctx),
    flowStoreWith: (serializer) => () => openFlow(ctx, { serializer }),
    flowStoreWhole: () => openFlow(ctx, { stateStorage: 'whole' }),
    // FULL pays an fsync per super-step; NORMAL shows what the engine costs without it.
    flowVariants: [
      { setting: "synchronous: 'normal'", open: () => openFlow(ctx, { synchronous: 'normal' }) },
    ],
    langgraphStore: () => openLangGraph(ctx),
    commitFloor: () => openCommitFloor(ctx),
    notes: [
      'sqlite: synchronous=FULL on every side: the raw floor, @flow (its default: a resolved put survives power ' +
        `loss) and LangGraph's SqliteSaver, which sets none itself (its connection would run with ${lgSync}).`,
    ],
  };
}

/**
 * W1 and W3 with `synchronous = NORMAL` on both sides (`--only normal`): with no fsync per commit, what is
 * left is the JavaScript and SQL around the write, which the durable default hides.
 */
export function sqliteNormalSuite(ctx: BenchContext): BackendSuite<Checkpointer, BaseCheckpointSaver> {
  const open = () => openFlow(ctx, { synchronous: 'normal' });
  return {
    id: 'sqlite',
    subjects: [rawSqlite(ctx, 'NORMAL'), flowSubject("SqliteCheckpointer (synchronous: 'normal')", open)],
    flowStore: open,
    langgraphStore: undefined,
    notes: [],
  };
}
