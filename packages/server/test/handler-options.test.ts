import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresCheckpointer } from '@flow/checkpoint-postgres';
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { type Checkpointer, encryptedSerializer } from '@flow/core';
import { END, START, StateGraph } from '@flow/graph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandler, isLoopbackHost, serve } from '../src/index.js';
import { client, path } from './support/client.js';
import { reviewGraph } from './support/graphs.mjs';
import { createStore, type StoreFixture } from './support/stores.js';

/** A raw request with a Host header of our choosing (fetch does not let us set one). */
function rawGet(port: number, url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: url, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('createHandler and serve options', () => {
  let fixture: StoreFixture;
  let store: Checkpointer;
  beforeAll(async () => {
    fixture = await createStore('sqlite');
    store = fixture.open();
  });
  afterAll(async () => {
    await store?.close();
    await fixture?.cleanup();
  });

  it('refuses a missing or empty token, graphs that are not compiled, graphs without a checkpointer', async () => {
    const graphs = { pipeline: reviewGraph(store) };
    expect(() => createHandler({ graphs } as never)).toThrow(
      /^\[flow:server\] token must be a non-empty string, or false/,
    );
    expect(() => createHandler({ graphs, token: '' })).toThrow(/token/);
    // A token no client can send back as `Authorization: Bearer <token>` (a space, a line end, a character
    // outside visible ASCII, which HTTP clients encode differently) would answer every request with 401.
    for (const token of ['two words', ' padded ', 'line-end\r\n', 'tab\tbed', 'tök']) {
      expect(() => createHandler({ graphs, token }), JSON.stringify(token)).toThrow(
        /^\[flow:server\] token must be visible ASCII characters/,
      );
    }
    expect(() => createHandler({ graphs, token: 'aZ09-._~+/=!#$%&*?@^|' })).not.toThrow();
    expect(() => createHandler({ graphs: { x: {} } as never, token: 't' })).toThrow(
      /graphs.x is not a compiled graph/,
    );
    expect(() => createHandler({ graphs: {}, token: 't' })).toThrow(/at least one/);
    const { StateGraph, START } = await import('@flow/graph');
    const bare = new StateGraph<{ n: number }>({})
      .addNode('a', () => ({}))
      .addEdge(START, 'a')
      .compile();
    expect(() => createHandler({ graphs: { bare }, token: 't' })).toThrow(/no checkpointer/);
    expect(() => createHandler({ graphs, token: 't', maxBodyBytes: 0 })).toThrow(/maxBodyBytes/);
  });

  it('token: false serves the API without auth, on loopback addresses only, to loopback Host names only', async () => {
    const handler = createHandler({ graphs: { pipeline: reviewGraph(store) }, token: false });
    await expect(serve(handler, { port: 0, host: '0.0.0.0' })).rejects.toThrow(
      /^\[flow:server\] .*loopback address only/,
    );
    await expect(serve(handler, { port: 0, host: '::' })).rejects.toThrow(/loopback/);
    const server = await serve(handler, { port: 0, host: '127.0.0.1' });
    try {
      const call = client(server.url, undefined);
      expect((await call('GET', '/api/graphs')).status).toBe(200);
      // A page of another site whose name resolves to 127.0.0.1 (DNS rebinding) sends its own Host.
      const rebound = await rawGet(server.port, '/api/graphs', 'evil.example:80');
      expect(rebound.status).toBe(401);
      expect(JSON.parse(rebound.body).error.code).toBe('UNAUTHORIZED');
      expect((await rawGet(server.port, '/api/graphs', `localhost:${server.port}`)).status).toBe(200);
    } finally {
      await server.close();
    }
    for (const host of ['127.0.0.1', '127.8.9.1', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1']) {
      expect(isLoopbackHost(host)).toBe(true);
    }
    for (const host of ['0.0.0.0', '::', '10.0.0.1', 'example.com', '128.0.0.1', '']) {
      expect(isLoopbackHost(host)).toBe(false);
    }
  });

  it('a handler with a token may listen on any address', async () => {
    const handler = createHandler({ graphs: { pipeline: reviewGraph(store) }, token: 'tok' });
    const server = await serve(handler, { port: 0, host: '0.0.0.0' });
    try {
      const answer = await client(`http://127.0.0.1:${server.port}`, 'tok')('GET', '/api/graphs');
      expect(answer.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('CORS: only configured origins get the headers, and their preflight', async () => {
    const handler = createHandler({
      graphs: { pipeline: reviewGraph(store) },
      token: 'tok',
      corsOrigins: ['https://ops.example.com'],
    });
    const allowed = await handler(
      new Request('http://x/api/graphs', {
        method: 'OPTIONS',
        headers: { origin: 'https://ops.example.com' },
      }),
    );
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://ops.example.com');
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/authorization/);
    const real = await handler(
      new Request('http://x/api/graphs', {
        headers: { origin: 'https://ops.example.com', authorization: 'Bearer tok' },
      }),
    );
    expect(real.headers.get('access-control-allow-origin')).toBe('https://ops.example.com');
    const other = await handler(
      new Request('http://x/api/graphs', { method: 'OPTIONS', headers: { origin: 'https://evil.example' } }),
    );
    expect(other.status).toBe(401);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('an unreachable store is 503 STORAGE', async () => {
    // Nothing listens on this port of the range this suite owns.
    const down = new PostgresCheckpointer('postgres://postgres@127.0.0.1:7299/postgres', {
      schema: 'flow_down',
    });
    const handler = createHandler({ graphs: { pipeline: reviewGraph(down) }, token: 'tok' });
    const auth = { authorization: 'Bearer tok' };
    try {
      for (const url of [path('graphs', 'pipeline', 'runs'), path('graphs', 'pipeline', 'runs', 'x')]) {
        const answer = await handler(new Request(`http://x${url}`, { headers: auth }));
        expect(answer.status).toBe(503);
        expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('STORAGE');
      }
    } finally {
      await down.close();
    }
  });

  it('an unexpected error is 500 INTERNAL without its message; onError gets it', async () => {
    const broken = new SqliteCheckpointer(':memory:');
    const leaky = new Proxy(broken, {
      get(target, key, receiver) {
        if (key === 'listThreads') return async () => Promise.reject(new Error('secret-state-value'));
        return Reflect.get(target, key, receiver);
      },
    });
    const seen: unknown[] = [];
    const handler = createHandler({
      graphs: { pipeline: reviewGraph(leaky) },
      token: 'tok',
      onError: (error, where) => seen.push([(error as Error).message, where]),
    });
    const answer = await handler(
      new Request(`http://x${path('graphs', 'pipeline', 'runs')}`, {
        headers: { authorization: 'Bearer tok' },
      }),
    );
    expect(answer.status).toBe(500);
    const text = await answer.text();
    expect(JSON.parse(text).error.code).toBe('INTERNAL');
    expect(text).not.toContain('secret-state-value');
    expect(seen).toEqual([['secret-state-value', { method: 'GET', path: '/api/graphs/pipeline/runs' }]]);
    await broken.close();
  });

  it('a run whose node returned what cannot be stored is 422 SERIALIZATION, and listed as failed', async () => {
    const app = new StateGraph<{ n: number }>()
      .addNode('leak', () => ({ callback: () => 1 }) as never)
      .addEdge(START, 'leak')
      .addEdge('leak', END)
      .compile({ checkpointer: store });
    const handler = createHandler({ graphs: { leaky: app }, token: 'tok' });
    const answer = await handler(
      new Request(`http://x${path('graphs', 'leaky', 'runs')}`, {
        method: 'POST',
        headers: { authorization: 'Bearer tok', 'content-type': 'application/json' },
        body: JSON.stringify({ input: { n: 1 }, thread: 'leaky-1' }),
      }),
    );
    expect(answer.status).toBe(422);
    const { error } = (await answer.json()) as { error: { code: string; message: string; node: unknown } };
    expect(error).toMatchObject({ code: 'SERIALIZATION', node: null });
    expect(error.message).toMatch(/cannot serialize a function at state\.callback/);
    const info = (await store.listThreads({ status: 'failed' })).find((t) => t.thread === 'leaky-1');
    expect(info?.error).toMatchObject({ node: 'leak' });
  });

  it('a record the server cannot authenticate is 500 CORRUPT_CHECKPOINT naming it, never its plaintext', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'flow-server-corrupt-'));
    const file = join(dir, 'runs.db');
    const writer = new SqliteCheckpointer(file, {
      serializer: encryptedSerializer({ keys: { k1: randomBytes(32) }, current: 'k1' }),
    });
    // The server's checkpointer has another key under the same id: every stored value fails authentication.
    const reader = new SqliteCheckpointer(file, {
      serializer: encryptedSerializer({ keys: { k1: randomBytes(32) }, current: 'k1' }),
    });
    try {
      await reviewGraph(writer).invoke({ topic: 'secret-topic-7', log: [] }, { thread: 'post-9' });
      const seen: string[] = [];
      const handler = createHandler({
        graphs: { pipeline: reviewGraph(reader) },
        token: 'tok',
        onError: (error) => seen.push((error as { code?: string }).code ?? ''),
      });
      const answer = await handler(
        new Request(`http://x${path('graphs', 'pipeline', 'runs', 'post-9')}`, {
          headers: { authorization: 'Bearer tok' },
        }),
      );
      expect(answer.status).toBe(500);
      const text = await answer.text();
      const { error } = JSON.parse(text) as { error: { code: string; message: string } };
      expect(error.code).toBe('CORRUPT_CHECKPOINT');
      expect(error.message).toMatch(/"post-9"/);
      expect(error.message).toMatch(/authentication failed under key "k1"/);
      expect(text).not.toContain('secret-topic-7');
      expect(seen).toEqual(['CORRUPT_CHECKPOINT']); // an operator still hears of it
    } finally {
      await writer.close();
      await reader.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('answers HEAD as GET with no body: the page without a token, the API only with one', async () => {
    const handler = createHandler({ graphs: { pipeline: reviewGraph(store) }, token: 'tok' });
    const head = (url: string, token?: string) =>
      handler(
        new Request(`http://x${url}`, {
          method: 'HEAD',
          headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
        }),
      );
    const page = await head('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(Number(page.headers.get('content-length'))).toBeGreaterThan(100);
    expect(await page.text()).toBe('');
    expect((await head('/api/graphs')).status).toBe(401);
    const listed = await head('/api/graphs', 'tok');
    expect(listed.status).toBe(200);
    expect(listed.headers.get('content-length')).toBe(
      String(JSON.stringify({ graphs: [{ name: 'pipeline' }] }).length),
    );
    expect(await listed.text()).toBe('');
    expect((await head('/api/graphs/nope/runs', 'tok')).status).toBe(404);
    // Over node:http too: the status and length of the GET, and no body on the wire.
    const server = await serve(handler, { port: 0, host: '127.0.0.1' });
    try {
      const answer = await new Promise<{ status: number; length: string | undefined; body: string }>(
        (resolve, reject) => {
          const req = httpRequest(
            { host: '127.0.0.1', port: server.port, path: '/', method: 'HEAD' },
            (res) => {
              let body = '';
              res.on('data', (c) => (body += c));
              res.on('end', () =>
                resolve({ status: res.statusCode ?? 0, length: res.headers['content-length'], body }),
              );
            },
          );
          req.on('error', reject);
          req.end();
        },
      );
      expect(answer.status).toBe(200);
      expect(answer.length).toBe(page.headers.get('content-length'));
      expect(answer.body).toBe('');
    } finally {
      await server.close();
    }
  });

  it('serves the UI at / without a token, with a strict content security policy', async () => {
    const handler = createHandler({ graphs: { pipeline: reviewGraph(store) }, token: 'tok' });
    const page = await handler(new Request('http://x/'));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    for (const asset of ['/ui/app.js', '/ui/style.css', '/ui/api.js']) {
      const answer = await handler(new Request(`http://x${asset}`));
      expect(answer.status).toBe(200);
      expect(await answer.text()).not.toMatch(/(src|href)=["']https?:|import .* from ['"]https?:/);
    }
  });
});
