import { getEventListeners } from 'node:events';
import { MemoryCheckpointer } from '@flow/checkpoint-memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunCancelled, START, StateGraph } from '../src/index.js';

// One AbortSignal shared by many concurrent calls (an app-wide shutdown signal), or one call fanning out to
// many nodes, must not collect a listener per node: Node warns MaxListenersExceededWarning past 10.

type S = { log: string[] };
const concat = (a: string[], b: string[]) => [...a, ...b];

describe('a signal shared by many runs', () => {
  let warnings: string[];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  beforeEach(() => {
    warnings = [];
    process.on('warning', onWarning);
  });
  afterEach(() => {
    process.off('warning', onWarning);
  });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20)); // warnings are emitted on a later tick

  function build(width: number, opts: { waitForAbort?: boolean } = {}) {
    let most = 0;
    let graph = new StateGraph<S>({ reducers: { log: concat } });
    const names = Array.from({ length: width }, (_, i) => `n${i}`);
    for (const name of names) {
      graph = graph.addNode(
        name,
        async (_s, ctx) => {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, opts.waitForAbort ? 60_000 : 10);
            ctx.signal.addEventListener('abort', () => {
              clearTimeout(timer);
              resolve();
            });
          });
          return { log: [name] };
        },
        { timeoutMs: 5_000, retry: { maxAttempts: 2, initialDelayMs: 1 } },
      );
    }
    const app = graph
      .addConditionalEdges(START, () => names, names)
      .compile({ checkpointer: new MemoryCheckpointer() });
    const watch = (signal: AbortSignal) => {
      const timer = setInterval(() => {
        most = Math.max(most, getEventListeners(signal, 'abort').length);
      }, 1);
      return () => clearInterval(timer);
    };
    return { app, watch, most: () => most };
  }

  it('100 concurrent invokes with one signal add at most one listener to it, and leave none', async () => {
    const { app, watch, most } = build(1);
    const controller = new AbortController();
    const stop = watch(controller.signal);
    const runs = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        app.invoke({ log: [] }, { thread: `t${i}`, signal: controller.signal }),
      ),
    );
    stop();
    await settle();
    expect(runs.every((r) => r.status === 'done')).toBe(true);
    expect(warnings).toEqual([]);
    expect(most()).toBeLessThanOrEqual(1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('one call fanning out to 30 nodes adds at most one listener to its signal', async () => {
    const { app, watch, most } = build(30);
    const controller = new AbortController();
    const stop = watch(controller.signal);
    const run = await app.invoke({ log: [] }, { thread: 'wide', signal: controller.signal });
    stop();
    await settle();
    expect(run.state.log).toHaveLength(30);
    expect(warnings).toEqual([]);
    expect(most()).toBeLessThanOrEqual(1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('aborting the shared signal still cancels every one of 50 runs in flight', async () => {
    const { app } = build(3, { waitForAbort: true });
    const controller = new AbortController();
    const runs = Array.from({ length: 50 }, (_, i) =>
      app.invoke({ log: [] }, { thread: `c${i}`, signal: controller.signal }).then(
        () => 'resolved',
        (error: unknown) => (error instanceof RunCancelled ? 'cancelled' : String(error)),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort(new Error('shutting down'));
    expect(new Set(await Promise.all(runs))).toEqual(new Set(['cancelled']));
    await settle();
    expect(warnings).toEqual([]);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
