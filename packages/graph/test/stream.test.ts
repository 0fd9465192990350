import { type Checkpointer, createRedactor } from '@flow/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { END, START, StateGraph, type StreamEvent } from '../src/index.js';
import { backends } from './support/backends.js';

type S = { n: number; log: string[]; token?: string };
const concat = (a: string[], b: string[]) => [...a, ...b];

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const ev of events) out.push(ev);
  return out;
}

describe.each(backends)('stream on $name', ({ create }) => {
  let checkpointer: Checkpointer;
  beforeEach(async () => {
    checkpointer = await create();
  });
  afterEach(async () => {
    await checkpointer.close();
  });

  const pipeline = (opts: { interruptBefore?: string[]; redactor?: (v: unknown) => unknown } = {}) =>
    new StateGraph<S>({ reducers: { log: concat } })
      .addNode('fetch', () => ({ token: 'secret-1', log: ['fetch'] }))
      .addNode('a', (s) => ({ n: s.n + 1, log: ['a'] }))
      .addNode('b', () => ({ log: ['b'] }))
      .addNode('ask', (_s, ctx) => ({ log: [`ask:${ctx.interrupt<string>({ token: 'in-payload' })}`] }))
      .addEdge(START, 'fetch')
      .addEdge('fetch', 'a')
      .addEdge('fetch', 'b')
      .addEdge('a', 'ask')
      .addEdge('ask', END)
      .compile({ checkpointer, ...opts });

  it('yields one event per super-step and one per interrupt stop, not for the input', async () => {
    const events = await collect(pipeline().stream({ n: 0, log: [] }, { thread: 's1' }));
    expect(events).toEqual([
      {
        step: 1,
        ran: ['fetch'],
        updates: { fetch: { token: 'secret-1', log: ['fetch'] } },
        next: ['a', 'b'],
        interrupted: false,
      },
      {
        step: 2,
        ran: ['a', 'b'],
        updates: { a: { n: 1, log: ['a'] }, b: { log: ['b'] } },
        next: ['ask'],
        interrupted: false,
      },
      { step: 3, ran: ['ask'], updates: {}, next: ['ask'], interrupted: true },
    ]);
  });

  it('streamResume yields the resumed super-steps, not the claim', async () => {
    const app = pipeline();
    await app.invoke({ n: 0, log: [] }, { thread: 's2' });
    const events = await collect(app.streamResume('s2', { answer: 'yes' }));
    expect(events).toEqual([
      { step: 5, ran: ['ask'], updates: { ask: { log: ['ask:yes'] } }, next: [], interrupted: false },
    ]);
    expect(await collect(app.streamResume('s2'))).toEqual([]);
  });

  it('yields an interruptBefore stop with no nodes run', async () => {
    const events = await collect(
      pipeline({ interruptBefore: ['a'] }).stream({ n: 0, log: [] }, { thread: 's3' }),
    );
    expect(events.at(-1)).toEqual({ step: 2, ran: [], updates: {}, next: ['a', 'b'], interrupted: true });
  });

  it('a redactor masks keys in events while checkpoints keep the real state', async () => {
    const app = pipeline({ redactor: createRedactor(['token']) });
    const events = await collect(app.stream({ n: 0, log: [] }, { thread: 's4' }));
    expect(events[0]?.updates).toEqual({ fetch: { token: '[redacted]', log: ['fetch'] } });
    expect((await app.getState('s4'))?.state.token).toBe('secret-1');
    expect((await app.getState('s4'))?.interruptPayload).toEqual({ token: 'in-payload' });
    const run = await app.resume('s4', { answer: 'ok' });
    expect(run.state.token).toBe('secret-1');
  });

  it('stops the run where the consumer stops reading, leaving it resumable', async () => {
    const app = new StateGraph<{ n: number }>()
      .addNode('inc', (s) => ({ n: s.n + 1 }))
      .addEdge(START, 'inc')
      .addConditionalEdges('inc', (s) => (s.n < 10 ? 'inc' : END))
      .compile({ checkpointer });
    for await (const ev of app.stream({ n: 0 }, { thread: 's5' })) {
      if (ev.step === 3) break;
    }
    expect(await app.getState('s5')).toMatchObject({ step: 3, state: { n: 3 }, next: ['inc'] });
    expect(await app.resume('s5')).toMatchObject({ status: 'done', state: { n: 10 } });
  });

  it('stream rejects like invoke does', async () => {
    const app = new StateGraph<{ n: number }>()
      .addNode('boom', () => {
        throw new Error('boom');
      })
      .addEdge(START, 'boom')
      .compile({ checkpointer });
    await expect(collect(app.stream({ n: 0 }, { thread: 's6' }))).rejects.toMatchObject({
      code: 'NODE_FAILED',
    });
  });
});
