import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { createHandler, type FlowServer, serve } from '@flow/server';
import { Annotation, END, interrupt, START, StateGraph } from '@langchain/langgraph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlowSaver, servedGraph } from '../src/index.js';

const TOKEN = 'langgraph-inbox-7';
const dir = mkdtempSync(join(tmpdir(), 'flow-langgraph-served-'));

const State = Annotation.Root({
  log: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
});

let workRuns = 0;
/** `work` and `ask` start together; `ask` waits for a human. */
function orders(store: SqliteCheckpointer) {
  return new StateGraph(State)
    .addNode('work', async () => {
      workRuns++;
      return { log: ['worked'] };
    })
    .addNode('ask', async () => {
      const answer = String(interrupt({ question: 'ship it?' }));
      // Answered: take a while, so racing answers arrive while this one is still running.
      await new Promise((resolve) => setTimeout(resolve, 150));
      return { log: [`answer: ${answer}`] };
    })
    .addEdge(START, 'work')
    .addEdge(START, 'ask')
    .addEdge('work', END)
    .addEdge('ask', END)
    .compile({ checkpointer: new FlowSaver(store) });
}

/** `draft` then `review`, with a static breakpoint before `review`. */
function reviewed(store: SqliteCheckpointer) {
  return new StateGraph(State)
    .addNode('draft', async () => ({ log: ['drafted'] }))
    .addNode('review', async () => ({ log: ['reviewed'] }))
    .addEdge(START, 'draft')
    .addEdge('draft', 'review')
    .addEdge('review', END)
    .compile({ checkpointer: new FlowSaver(store), interruptBefore: ['review'] });
}

/** `ask` only: a question, then done. */
function asking(store: SqliteCheckpointer) {
  return new StateGraph(State)
    .addNode('ask', async () => ({ log: [`answer: ${String(interrupt({ question: 'go on?' }))}`] }))
    .addEdge(START, 'ask')
    .addEdge('ask', END)
    .compile({ checkpointer: new FlowSaver(store) });
}

/** `pre`, then a subgraph that asks: its checkpoints live in a namespace of the thread, a @flow thread of its own. */
function nested(store: SqliteCheckpointer) {
  const child = new StateGraph(State)
    .addNode('ask', async () => ({ log: [`child: ${String(interrupt({ question: 'inside?' }))}`] }))
    .addEdge(START, 'ask')
    .addEdge('ask', END)
    .compile();
  return new StateGraph(State)
    .addNode('pre', async () => ({ log: ['pre'] }))
    .addNode('child', child)
    .addEdge(START, 'pre')
    .addEdge('pre', 'child')
    .addEdge('child', END)
    .compile({ checkpointer: new FlowSaver(store) });
}

/** `p` and `q` ask at once; each answer names its interrupt id. */
function twoQuestions(store: SqliteCheckpointer) {
  return new StateGraph(State)
    .addNode('p', async () => ({ log: [`p: ${String(interrupt({ question: 'p?' }))}`] }))
    .addNode('q', async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { log: [`q: ${String(interrupt({ question: 'q?' }))}`] };
    })
    .addEdge(START, 'p')
    .addEdge(START, 'q')
    .addEdge('p', END)
    .addEdge('q', END)
    .compile({ checkpointer: new FlowSaver(store) });
}

describe('the control plane serves a LangGraph.js graph: its inbox shows and answers interrupt()', () => {
  let store: SqliteCheckpointer;
  let server: FlowServer;
  let url: string;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(url + path, {
      method,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  beforeAll(async () => {
    store = new SqliteCheckpointer(join(dir, 'served.db'));
    const handler = createHandler({
      graphs: {
        orders: servedGraph(orders(store)),
        reviewed: servedGraph(reviewed(store)),
        asking: servedGraph(asking(store)),
        nested: servedGraph(nested(store)),
        two: servedGraph(twoQuestions(store)),
      },
      token: TOKEN,
    });
    server = await serve(handler, { port: 0, host: '127.0.0.1' });
    url = server.url;
  });
  afterAll(async () => {
    await server?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a run stopped by interrupt() is listed with its question and LangGraph’s interrupt id; one of racing answers wins', async () => {
    const started = await call('POST', '/api/graphs/orders/runs', { input: {}, thread: 'order-42' });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({
      thread: 'order-42',
      status: 'interrupted',
      interrupt: { node: 'ask', payload: { question: 'ship it?' } },
    });
    const id = started.body.interrupt.id as string;
    expect(typeof id).toBe('string');

    const inbox = await call('GET', '/api/graphs/orders/runs?status=interrupted');
    expect(inbox.body.runs).toMatchObject([{ thread: 'order-42', interrupted: true }]);
    const latest = await call('GET', '/api/graphs/orders/runs/order-42');
    expect(latest.body).toMatchObject({
      interrupted: true,
      interruptNode: 'ask',
      interruptPayload: { question: 'ship it?' },
      interrupts: [{ id, node: 'ask', payload: { question: 'ship it?' } }],
    });

    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        call('POST', '/api/graphs/orders/runs/order-42/resume', { answer: 'yes', interrupt: id }),
      ),
    );
    const won = answers.filter((a) => a.status === 200);
    expect(won).toHaveLength(1);
    expect(won[0]?.body).toMatchObject({ status: 'done', state: { log: ['answer: yes', 'worked'] } });
    expect(answers.filter((a) => a.status === 409).map((a) => a.body.error.code)).toEqual(
      Array(4).fill('ALREADY_RESUMED'),
    );
    // `work` finished before the interrupt and kept its result.
    expect(workRuns).toBe(1);
    const late = await call('POST', '/api/graphs/orders/runs/order-42/resume', { answer: 'no' });
    expect(late.status).toBe(409);
    expect((await call('GET', '/api/graphs/orders/runs?status=interrupted')).body.runs).toEqual([]);
  });

  it('a stop at an interruptBefore breakpoint shows as interrupted, with no question; it goes on without an answer', async () => {
    const started = await call('POST', '/api/graphs/reviewed/runs', { input: {}, thread: 'essay-1' });
    expect(started.body).toMatchObject({
      status: 'interrupted',
      interrupt: { id: null, node: 'review', payload: null },
      interrupts: [],
    });
    const runs = await call('GET', '/api/graphs/reviewed/runs?status=interrupted');
    expect(runs.body.runs).toMatchObject([{ thread: 'essay-1', interrupted: true }]);
    expect((await call('GET', '/api/graphs/reviewed/runs/essay-1')).body).toMatchObject({
      interrupted: true,
      interruptNode: 'review',
      interruptPayload: null,
    });
    const withAnswer = await call('POST', '/api/graphs/reviewed/runs/essay-1/resume', { answer: 'ok' });
    expect(withAnswer.status).toBe(400);
    const resumed = await call('POST', '/api/graphs/reviewed/runs/essay-1/resume', {});
    expect(resumed.body).toMatchObject({ status: 'done', state: { log: ['drafted', 'reviewed'] } });
    expect((await store.listThreads()).find((t) => t.thread === 'essay-1')?.done).toBe(true);
  });

  it('a LangGraph thread whose id is too long for a @flow id (stored under a hash) is answered too', async () => {
    // Started by LangGraph itself, with a thread_id of 600 characters: @flow stores it as `lg#<hashes>`.
    const threadId = `long-${'x'.repeat(595)}`;
    await asking(store).invoke({}, { configurable: { thread_id: threadId } });
    const inbox = await call('GET', '/api/graphs/asking/runs?status=interrupted');
    const hashed = (inbox.body.runs as { thread: string }[]).map((r) => r.thread);
    expect(hashed).toHaveLength(1);
    expect(hashed[0]).toMatch(/^lg#/);
    const path = `/api/graphs/asking/runs/${encodeURIComponent(hashed[0] as string)}`;
    expect((await call('GET', path)).body).toMatchObject({
      interrupted: true,
      interrupts: [{ node: 'ask', payload: { question: 'go on?' } }],
    });
    const resumed = await call('POST', `${path}/resume`, { answer: 'yes' });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ status: 'done', state: { log: ['answer: yes'] } });
    const state = await asking(store).getState({ configurable: { thread_id: threadId } });
    expect(state.values.log).toEqual(['answer: yes']);
  });

  it('a question asked inside a subgraph is one run in the inbox, the root thread, not one per namespace', async () => {
    const started = await call('POST', '/api/graphs/nested/runs', { input: {}, thread: 'nested-1' });
    expect(started.body).toMatchObject({
      status: 'interrupted',
      interrupt: { payload: { question: 'inside?' } },
    });
    // The subgraph's namespace is a @flow thread of its own (flow threads lists it), but not a run to answer.
    expect((await store.listThreads({ status: 'interrupted' })).map((t) => t.thread)).toContain('nested-1');
    expect((await store.listThreads({ status: 'interrupted' })).length).toBeGreaterThan(1);
    const inbox = await call('GET', '/api/graphs/nested/runs?status=interrupted');
    expect(inbox.body.runs.map((r: { thread: string }) => r.thread)).toEqual(['nested-1']);
    // Paging skips namespaces too: a page of one is the one run, and no next page.
    const first = await call('GET', '/api/graphs/nested/runs?status=interrupted&limit=1');
    expect(first.body).toMatchObject({ runs: [{ thread: 'nested-1' }], next: null });
    const resumed = await call('POST', '/api/graphs/nested/runs/nested-1/resume', { answer: 'yes' });
    expect(resumed.body).toMatchObject({ status: 'done' });
    expect(resumed.body.state.log).toContain('child: yes');
    expect((await call('GET', '/api/graphs/nested/runs?status=interrupted')).body.runs).toEqual([]);
  });

  it('of two questions asked at once, the one answered by id leaves the inbox; the other still waits', async () => {
    const started = await call('POST', '/api/graphs/two/runs', { input: {}, thread: 'two-1' });
    const asked = started.body.interrupts as { id: string; node: string }[];
    expect(asked.map((i) => i.node).toSorted()).toEqual(['p', 'q']);
    const p = asked.find((i) => i.node === 'p')?.id;
    const answered = await call('POST', '/api/graphs/two/runs/two-1/resume', { answer: 'yes', interrupt: p });
    expect(answered.body).toMatchObject({
      status: 'interrupted',
      interrupt: { node: 'q', payload: { question: 'q?' } },
      interrupts: [{ node: 'q', payload: { question: 'q?' } }],
    });
    expect(answered.body.state.log).toEqual(['p: yes']);
    const latest = await call('GET', '/api/graphs/two/runs/two-1');
    expect(latest.body).toMatchObject({
      interruptNode: 'q',
      interruptPayload: { question: 'q?' },
      interrupts: [{ node: 'q' }],
    });
    expect(latest.body.interrupts).toHaveLength(1);
    const again = await call('POST', '/api/graphs/two/runs/two-1/resume', { answer: 'again', interrupt: p });
    expect(again.status).toBe(409);
    const q = latest.body.interrupts[0].id as string;
    const done = await call('POST', '/api/graphs/two/runs/two-1/resume', { answer: 'ok', interrupt: q });
    expect(done.body).toMatchObject({ status: 'done' });
    expect(done.body.state.log.toSorted()).toEqual(['p: yes', 'q: ok']);
  });
});
