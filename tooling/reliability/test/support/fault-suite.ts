import { Checkpoint, type Checkpointer, isFlowError } from '@flow/core';
import type { FaultProxy } from '@flow/fault-proxy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNTING_INPUT, countingGraph } from '../fixtures/graphs.mjs';
import { randomInt } from './children.js';
import { sleep } from './crash.js';
import { count } from './figures.js';
import { type NetworkBackend, proxyFor, throughProxy } from './network.js';
import { freshStore, type Store } from './stores.js';

/** The counting graph's lease in the cut-runs test: short, so a lease left by a cut call expires soon. */
const LEASE_MS = 300;

/** Puts cut mid-flight per backend, and graph runs cut until they finish. */
const CUT_PUTS = 24;
const CUT_RUNS = 3;
/** The timeout the faulted checkpointers are given, and how late past it a failure may come. */
const TIMEOUT_MS = 500;
const SLACK_MS = 1_500;

/** A state big enough (about 256 KB) that a put spans many TCP segments, so a cut can land inside one. */
function bigState(i: number) {
  return { i, text: `cut ${i} `.repeat(32_768), when: new Date(i * 1000), ids: new Set([i, i + 1]) };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

/** The fault tests of one network backend: the checkpointer talks to the real server through a TCP proxy. */
export function describeFaults(backend: NetworkBackend): void {
  describe(`${backend} behind a fault proxy`, () => {
    let proxy: FaultProxy;
    let store: Store;
    let direct: Checkpointer;
    let faulted: Checkpointer;
    beforeAll(async () => {
      proxy = await proxyFor(backend);
      store = freshStore(backend);
      direct = store.open();
      faulted = throughProxy(store, proxy, TIMEOUT_MS);
      await direct.setup();
    });
    afterAll(async () => {
      await faulted?.close().catch(() => {});
      await proxy?.close();
      await store?.remove();
    });

    it(`a put cut mid-flight (${CUT_PUTS} cuts: while held, while delayed, at random) is stored whole or not at all, and the same instance works after heal`, async () => {
      const outcomes = { stored: 0, absent: 0 };
      for (let i = 0; i < CUT_PUTS; i++) {
        const thread = `cut-${i}`;
        await direct.put(new Checkpoint({ thread, step: 0, state: 'before', next: ['n'] }));
        await faulted.get(thread); // a live connection through the proxy, so the cut hits one
        const mode = i % 3;
        if (mode === 0) proxy.stall(true);
        if (mode === 1) proxy.setLatency(randomInt(2, 15));
        const put = rejection(
          faulted.put(new Checkpoint({ thread, step: 1, state: bigState(i), next: ['n'] }), {
            ifRevision: 0,
          }),
        );
        await sleep(mode === 2 ? randomInt(0, 4) : randomInt(1, 25));
        proxy.cut();
        proxy.heal();
        const error = await put;
        if (error !== undefined) {
          expect(isFlowError(error, 'STORAGE'), `put ${i} failed with ${String(error)}`).toBe(true);
          expect((error as Error).cause).toBeInstanceOf(Error);
        }
        // A put whose reply was lost may still land a moment later (Redis runs it once it arrives).
        await sleep(50);
        const stored = await direct.get(thread, 1);
        if (error === undefined) expect(stored, `put ${i} resolved, so it is stored`).toBeDefined();
        if (stored === undefined) {
          outcomes.absent++;
          expect((await direct.get(thread))?.step).toBe(0);
        } else {
          outcomes.stored++;
          expect(stored.state).toEqual(bigState(i));
          expect(stored.revision).toBe(1);
          expect((await direct.get(thread))?.step).toBe(1);
        }
        const info = (await direct.listThreads()).find((t) => t.thread === thread);
        expect(info?.latestStep, 'the thread summary agrees with the steps').toBe(
          stored === undefined ? 0 : 1,
        );
        // The same instance works again once the link is back.
        const next = await faulted.put(new Checkpoint({ thread, step: 2, state: 'after', next: [] }));
        expect(next.revision).toBe(1);
      }
      expect(outcomes.stored + outcomes.absent).toBe(CUT_PUTS);
      count(`faults: ${backend}`, 'faults injected', CUT_PUTS);
      count(`faults: ${backend}`, 'data lost', 0);
      console.log(
        `${backend}: ${CUT_PUTS} puts cut mid-flight: ${outcomes.stored} stored whole, ${outcomes.absent} not at all`,
      );
    });

    it(`a stalled link fails put, get and listThreads with StorageError and its cause within the timeout (${TIMEOUT_MS} ms); after heal the same instance works`, async () => {
      await faulted.put(new Checkpoint({ thread: 'stall', step: 0, state: 0, next: ['n'] }));
      proxy.stall(true);
      const calls: Array<[string, () => Promise<unknown>]> = [
        ['put', () => faulted.put(new Checkpoint({ thread: 'stall', step: 1, state: 1, next: ['n'] }))],
        ['get', () => faulted.get('stall')],
        ['listThreads', () => faulted.listThreads()],
      ];
      for (const [what, call] of calls) {
        const started = Date.now();
        const error = await rejection(call());
        const took = Date.now() - started;
        expect(isFlowError(error, 'STORAGE'), `${what}: ${String(error)}`).toBe(true);
        expect((error as Error).cause, what).toBeInstanceOf(Error);
        expect(took, `${what} failed after ${took} ms`).toBeLessThan(TIMEOUT_MS + SLACK_MS);
      }
      proxy.heal();
      // The stalled put's outcome is unknown (Redis may apply it once the held bytes move): read it back.
      await sleep(50);
      const stalled = await faulted.get('stall', 1);
      if (stalled !== undefined) expect(stalled.state).toBe(1);
      const again = await faulted.put(new Checkpoint({ thread: 'stall', step: 2, state: 2, next: [] }));
      expect(again.revision).toBe(1);
      expect((await faulted.get('stall'))?.state).toBe(2);
      count(`faults: ${backend}`, 'faults injected', calls.length);
    });

    it('refused connections fail promptly with StorageError; once accepted again the same instance works', async () => {
      proxy.refuse(true);
      proxy.cut();
      const started = Date.now();
      const error = await rejection(faulted.put(new Checkpoint({ thread: 'refused', step: 0, state: 0 })));
      expect(isFlowError(error, 'STORAGE'), String(error)).toBe(true);
      expect((error as Error).cause).toBeInstanceOf(Error);
      expect(Date.now() - started).toBeLessThan(5_000 + SLACK_MS);
      proxy.heal();
      await expect
        .poll(
          () => faulted.put(new Checkpoint({ thread: 'refused', step: 0, state: 1 })).then((c) => c.revision),
          {
            timeout: 5_000,
            interval: 100,
          },
        )
        .toBeGreaterThanOrEqual(1);
      expect((await direct.get('refused'))?.state).toBe(1);
      count(`faults: ${backend}`, 'faults injected');
    });

    it(`graph runs cut at random moments until they finish (${CUT_RUNS} runs) end in the state of an uninterrupted run, each step written once`, async () => {
      const expected = (await countingGraph().invoke(COUNTING_INPUT)).state;
      // A cut call cannot release its lease; a short lease lets the retry take over soon after.
      const app = countingGraph(faulted, { leaseMs: LEASE_MS });
      let faults = 0;
      for (let run = 0; run < CUT_RUNS; run++) {
        const thread = `graph-${run}`;
        let result: Awaited<ReturnType<typeof app.invoke>> | undefined;
        for (let attempt = 0; result === undefined; attempt++) {
          expect(attempt, 'attempts before the run got through').toBeLessThan(50);
          const started = (await direct.get(thread)) === undefined;
          const going = started ? app.invoke(COUNTING_INPUT, { thread }) : app.resume(thread);
          const cut = attempt < 4 ? setTimeout(() => proxy.cut(), randomInt(2, 40)) : undefined;
          try {
            result = await going;
          } catch (error) {
            // The cut fails the write in flight; nothing else may go wrong. The cut call's lease outlives it
            // (its release was cut too, and its process is alive), so a retry may find it live until it expires.
            if (isFlowError(error, 'THREAD_BUSY')) {
              await new Promise((resolve) => setTimeout(resolve, LEASE_MS));
              continue;
            }
            expect(isFlowError(error, 'STORAGE'), String(error)).toBe(true);
            faults++;
          } finally {
            clearTimeout(cut);
          }
        }
        expect(result.status).toBe('done');
        expect(result.state).toEqual(expected);
        const history = await direct.list(thread);
        const steps = history.map((c) => c.step);
        expect(steps).toEqual(steps.map((_, i) => steps.length - 1 - i));
        expect(history.filter((c) => c.revision !== 1)).toEqual([]);
        expect(history[0]?.state).toEqual(expected);
      }
      count(`faults: ${backend}`, 'faults injected', faults);
    });
  });
}
