import { MemoryCheckpointer } from '@flow/checkpoint-memory';
import { PostgresCheckpointer } from '@flow/checkpoint-postgres';
import { type FaultProxy, startFaultProxy } from '@flow/fault-proxy';
import { dropSchema, uniqueSchema } from '@flow/test-db';
import { afterAll, describe, expect, inject, it } from 'vitest';
import * as engine from '../src/index.js';
import { createWorker, START, StateGraph } from '../src/index.js';
import { counter } from './fixtures/worker-graphs.mjs';
import { sleep, until } from './support/until.js';

describe('a worker whose store is unreachable', () => {
  const url = new URL(inject('flowTestPostgresUrl'));
  const schema = uniqueSchema();
  let proxy: FaultProxy;
  const opened: PostgresCheckpointer[] = [];
  afterAll(async () => {
    for (const cp of opened) await cp.close().catch(() => {});
    await proxy?.close();
    await dropSchema(url.href, schema);
  });

  it('retries with a growing wait, one log line per failure, never crashes, and goes on when it is back', {
    timeout: 60_000,
  }, async () => {
    proxy = await startFaultProxy({ target: { host: url.hostname, port: Number(url.port || 5432) } });
    const through = new URL(url.href);
    through.host = `127.0.0.1:${proxy.port}`;
    const viaProxy = new PostgresCheckpointer(through.href, { schema, queryTimeout: 2_000 });
    const direct = new PostgresCheckpointer(url.href, { schema });
    opened.push(viaProxy, direct);
    await viaProxy.setup();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      proxy.refuse(true);
      proxy.cut();
      const log: { at: number; line: string }[] = [];
      const worker = createWorker(counter(engine, viaProxy, { steps: 2 }), {
        id: 'cut-off',
        pollMs: 50,
        log: (line) => log.push({ at: Date.now(), line }),
      });
      worker.start();
      await sleep(2_500);
      // Waits of 50, 100, 200, 400, 800 ms…: a handful of tries in 2.5 s, not one every 50 ms.
      expect(log.length).toBeGreaterThanOrEqual(3);
      expect(log.length).toBeLessThanOrEqual(8);
      for (const { line } of log) {
        expect(line).toMatch(
          /^\[flow:worker\] cut-off: cannot reach the store \(.+\); trying again in \d+ ms$/,
        );
        expect(line).not.toContain('\n');
      }
      const waits = log.map(({ line }) => Number(/in (\d+) ms/.exec(line)?.[1]));
      expect(waits.slice(0, 4)).toEqual([50, 100, 200, 400]);
      // Runs enqueued meanwhile (through a path that works) are taken once the worker's path is healed.
      const producer = counter(engine, direct, { steps: 2 });
      await producer.enqueue({ n: 0 }, { thread: 'after-outage-1' });
      await producer.enqueue({ n: 0 }, { thread: 'after-outage-2' });
      proxy.heal();
      await until(async () => (await direct.listThreads({ status: 'done' })).length === 2, 'both runs', {
        timeoutMs: 20_000,
      });
      const failures = log.length;
      await sleep(300);
      expect(log.length).toBe(failures);
      await worker.stop();
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('createWorker options', () => {
  const app = () =>
    new StateGraph<{ n: number }>()
      .addNode('inc', (s) => ({ n: s.n + 1 }))
      .addEdge(START, 'inc')
      .compile({ checkpointer: new MemoryCheckpointer() });

  it.each([
    [{ concurrency: 0 }, /concurrency must be an integer from 1 to 1024, got 0/],
    [{ concurrency: 1025 }, /concurrency must be an integer from 1 to 1024/],
    [{ concurrency: 2.5 }, /concurrency must be an integer from 1 to 1024/],
    [{ pollMs: 9 }, /pollMs must be an integer from 10 to 3600000, got 9/],
    [{ pollMs: '1s' }, /pollMs must be an integer from 10 to 3600000/],
    [{ pollMs: 3_600_001 }, /pollMs must be an integer from 10 to 3600000/],
    [{ maxRecoveries: 0 }, /maxRecoveries must be an integer from 1 to 1000, got 0/],
    [{ maxRecoveries: Number.NaN }, /maxRecoveries must be an integer from 1 to 1000/],
    [{ id: '' }, /id must be a string of 1 to 200 characters/],
    [{ log: 'console' }, /log must be a function/],
  ])('%o → InvalidArgumentError, and no run is taken', async (options, message) => {
    const graph = app();
    await graph.enqueue({ n: 0 }, { thread: 'waiting' });
    let error: unknown;
    try {
      createWorker(graph, options as object);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(message) });
    await sleep(50);
    expect((await graph.history('waiting')).map((c) => c.step)).toEqual([0]);
    expect(await graph.checkpointer?.getLease('waiting')).toBeUndefined();
  });

  it('needs a compiled graph with a checkpointer', () => {
    const bare = new StateGraph()
      .addNode('n', () => ({}))
      .addEdge(START, 'n')
      .compile();
    expect(() => createWorker(bare)).toThrow(expect.objectContaining({ code: 'NO_CHECKPOINTER' }));
    expect(() => createWorker({} as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => createWorker(app(), 'fast' as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});
