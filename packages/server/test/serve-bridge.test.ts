import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import type { Checkpointer } from '@flow/core';
import { describe, expect, it } from 'vitest';
import type { FlowHandler } from '../src/handler.js';
import { createHandler, serve } from '../src/index.js';

/** `serve` sends whatever Response a Fetch handler other than createHandler's returns. */
describe('serve writes every kind of Response', () => {
  async function through(handler: FlowHandler) {
    const server = await serve(handler, { port: 0 });
    try {
      const response = await fetch(`${server.url}/x`);
      return { status: response.status, headers: response.headers, body: await response.text() };
    } finally {
      await server.close();
    }
  }

  it('a Response made elsewhere (a stream body, multi-byte text) goes out whole with its length and headers', async () => {
    const text = 'é'.repeat(40_000);
    const answer = await through(async () => {
      const bytes = new TextEncoder().encode(text);
      const stream = new ReadableStream({
        start(c) {
          c.enqueue(bytes.subarray(0, 1000));
          c.enqueue(bytes.subarray(1000));
          c.close();
        },
      });
      return new Response(stream, { status: 201, headers: { 'x-kind': 'stream' } });
    });
    expect(answer).toMatchObject({ status: 201, body: text });
    expect(answer.headers.get('x-kind')).toBe('stream');
    expect(answer.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
  });
});

/** `close()` ends the connections of the requests it waits for, instead of waiting out keep-alive. */
describe('serve close with a request in flight', () => {
  const slowRun = async (checkpointer: Checkpointer) => {
    const { StateGraph, START, END } = await import('@flow/graph');
    return new StateGraph<{ ok?: number }>({})
      .addNode('slow', async () => {
        await new Promise((r) => setTimeout(r, 300));
        return { ok: 1 };
      })
      .addEdge(START, 'slow')
      .addEdge('slow', END)
      .compile({ checkpointer });
  };

  async function closeDuring(handler: FlowHandler, path: string, init: RequestInit) {
    const server = await serve(handler, { port: 0 });
    const answer = fetch(`${server.url}${path}`, init).then(async (r) => ({
      status: r.status,
      connection: r.headers.get('connection'),
      body: await r.text(),
    }));
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await Promise.all([server.close(), answer]);
    return { ...(await answer), closeMs: Date.now() - started };
  }

  it('resolves once the answer is sent (createHandler and any Fetch handler), its connection closed', async () => {
    const store = new SqliteCheckpointer(':memory:');
    try {
      const handler = createHandler({ graphs: { app: await slowRun(store) }, token: 'tok' });
      const run = await closeDuring(handler, '/api/graphs/app/runs', {
        method: 'POST',
        headers: { authorization: 'Bearer tok' },
        body: JSON.stringify({ input: {}, thread: 'in-flight' }),
      });
      expect(run).toMatchObject({ status: 200, connection: 'close' });
      expect(JSON.parse(run.body)).toMatchObject({ thread: 'in-flight', status: 'done' });
      // Keep-alive would hold the socket (and close) for the 5 s of node:http's keepAliveTimeout.
      expect(run.closeMs).toBeLessThan(2000);
    } finally {
      await store.close();
    }
    const plainHandler: FlowHandler = async () => {
      await new Promise((r) => setTimeout(r, 300));
      return new Response('done');
    };
    const plain = await closeDuring(plainHandler, '/x', {});
    expect(plain).toMatchObject({ status: 200, connection: 'close', body: 'done' });
    expect(plain.closeMs).toBeLessThan(2000);
  });
});
