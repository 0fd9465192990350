import { PostgresCheckpointer } from '@flow/checkpoint-postgres';
import { RedisCheckpointer } from '@flow/checkpoint-redis';
import type { Checkpointer } from '@flow/core';
import { type CompiledGraph, END, START, StateGraph } from '@flow/graph';
import { Redis } from 'ioredis';
import pg from 'pg';

/** Where a worker process finds the store the bench made: the same schema or key prefix. */
export type StoreDescriptor =
  | { backend: 'postgres'; url: string; schema: string; pool: number }
  | { backend: 'redis'; url: string; prefix: string };

/** Opens the described store; `close` releases what it opened (the data stays). */
export async function openDescribed(
  d: StoreDescriptor,
): Promise<{ store: Checkpointer; close(): Promise<void> }> {
  if (d.backend === 'postgres') {
    const pool = new pg.Pool({ connectionString: d.url, max: d.pool });
    const store = new PostgresCheckpointer(pool, { schema: d.schema });
    await store.setup();
    return {
      store,
      close: async () => {
        await store.close();
        await pool.end();
      },
    };
  }
  const client = new Redis(d.url);
  const store = new RedisCheckpointer(client, { prefix: d.prefix });
  await store.setup();
  return {
    store,
    close: async () => {
      await store.close();
      client.disconnect();
    },
  };
}

/** The state of a bench run: the counter, and how long each node waits (set at enqueue; else the graph's). */
export interface RunState {
  n: number;
  sleepMs?: number;
}

/** The graph the worker workloads run: `a` and `b` take turns adding 1 to `n` until it reaches `steps`. */
export interface RunGraphOptions {
  steps: number;
  /** Each node waits this long (a stand-in for real work), unless the run's state says otherwise. */
  sleepMs: number;
  leaseMs: number;
}

export function runGraph(checkpointer: Checkpointer, o: RunGraphOptions): CompiledGraph<RunState> {
  const node = async (s: RunState) => {
    const ms = s.sleepMs ?? o.sleepMs;
    if (ms > 0) await new Promise((r) => setTimeout(r, ms));
    return { n: s.n + 1 };
  };
  return new StateGraph<RunState>()
    .addNode('a', node)
    .addNode('b', node)
    .addEdge(START, 'a')
    .addConditionalEdges('a', (s) => (s.n < o.steps ? 'b' : END), ['b'])
    .addConditionalEdges('b', (s) => (s.n < o.steps ? 'a' : END), ['a'])
    .compile({ checkpointer, leaseMs: o.leaseMs, maxSteps: o.steps + 1 });
}

/** What the bench tells a worker process. */
export interface WorkerProcessArgs {
  store: StoreDescriptor;
  graph: RunGraphOptions;
  concurrency: number;
  pollMs: number;
  /** Pretend to run on this host: leases then name it, so the dead-owner rule of this machine never applies. */
  host?: string;
}
