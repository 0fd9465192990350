import type { Checkpointer } from '@flow/core';
import { END, START, StateGraph } from '@flow/graph';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHandler } from '../src/index.js';
import { path } from './support/client.js';
import { createStore, type StoreFixture } from './support/stores.js';

type Answer = { status: number; body: { error?: { code: string; message: string; node?: string | null } } };

/** start → `review` (asks a human) → END, at the given state version. */
function graph(checkpointer: Checkpointer, opts: { version?: number; review?: string } = {}) {
  const review = opts.review ?? 'review';
  const version = opts.version ?? 1;
  return new StateGraph<{ name: string; ok?: string }>()
    .addNode('start', () => ({}))
    .addNode(review, (_s, ctx) => ({ ok: ctx.interrupt<string>('ok?') }))
    .addEdge(START, 'start')
    .addEdge('start', review)
    .addEdge(review, END)
    .compile(
      version === 1
        ? { checkpointer }
        : { checkpointer, stateVersion: version, migrate: { 1: (s: object) => ({ ...s, v2: true }) } },
    );
}

describe('the server on runs its graph cannot read or go on with', () => {
  let fixture: StoreFixture;
  let store: Checkpointer;
  let seen: string[];
  beforeEach(async () => {
    fixture = await createStore('sqlite');
    store = fixture.open();
    seen = [];
  });
  afterEach(async () => {
    await store.close();
    await fixture.cleanup();
  });

  const call = async (app: ReturnType<typeof graph>, method: string, url: string, body?: unknown) => {
    const handler = createHandler({
      graphs: { signup: app },
      token: 'tok',
      onError: (error) => seen.push((error as { code?: string }).code ?? ''),
    });
    const response = await handler(
      new Request(`http://x${url}`, {
        method,
        headers: { authorization: 'Bearer tok', 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    return { status: response.status, body: await response.json() } as Answer;
  };

  it('a state newer than the served graph is 500 STATE_VERSION naming the thread and versions, not INTERNAL', async () => {
    await graph(store, { version: 2 }).invoke({ name: 'ada' }, { thread: 'signup-1' });
    const old = graph(store); // a server still on version 1 of the graph
    const run = path('graphs', 'signup', 'runs', 'signup-1');
    for (const [method, url, body] of [
      ['GET', run],
      ['GET', `${run}/history`],
      ['GET', `${run}/steps/0`],
      ['GET', `${run}/diff`],
      ['POST', `${run}/resume`, { answer: 'yes' }],
    ] as const) {
      const answer = await call(old, method, url, body);
      expect(answer.status, `${method} ${url}`).toBe(500);
      expect(answer.body.error?.code, `${method} ${url}`).toBe('STATE_VERSION');
      expect(answer.body.error?.message).toMatch(
        /thread "signup-1" step \d: state version 2, graph version 1/,
      );
    }
    expect(new Set(seen)).toEqual(new Set(['STATE_VERSION'])); // an operator still hears of it
    expect((await store.get('signup-1'))?.step).toBe(2); // nothing was written
  });

  it('a frontier naming a node the graph no longer has is 500 INVALID_GRAPH naming it, and nothing is written', async () => {
    await graph(store).invoke({ name: 'ada' }, { thread: 'signup-2' });
    const before = (await store.list('signup-2')).map((cp) => [cp.step, cp.revision]);
    const renamed = graph(store, { version: 2, review: 'approve' });
    const answer = await call(renamed, 'POST', `${path('graphs', 'signup', 'runs', 'signup-2')}/resume`, {
      answer: 'yes',
    });
    expect(answer.status).toBe(500);
    expect(answer.body.error?.code).toBe('INVALID_GRAPH');
    expect(answer.body.error?.message).toMatch(/goes on with "review", which this graph does not have/);
    expect((await store.list('signup-2')).map((cp) => [cp.step, cp.revision])).toEqual(before);
  });

  it('a router returning a name it may not fails the run: 422 INVALID_GRAPH with the node, as a node failure', async () => {
    const misrouted = new StateGraph<{ n: number }>()
      .addNode('pick', () => ({ n: 1 }))
      .addNode('ship', () => ({}))
      .addEdge(START, 'pick')
      .addConditionalEdges('pick', () => 'nowhere' as 'ship', ['ship'])
      .addEdge('ship', END)
      .compile({ checkpointer: store });
    const answer = await call(misrouted as never, 'POST', path('graphs', 'signup', 'runs'), {
      input: {},
      thread: 'order-1',
    });
    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatchObject({ code: 'INVALID_GRAPH', node: 'pick' });
    expect(answer.body.error?.message).toMatch(/the router after "pick" returned "nowhere"/);
    expect((await store.get('order-1'))?.error).toMatchObject({ node: 'pick' });
  });
});
