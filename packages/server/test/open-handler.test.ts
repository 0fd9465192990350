import { networkInterfaces } from 'node:os';
import type { Checkpointer } from '@flow/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandler, type FlowHandler, serve } from '../src/index.js';
import { path } from './support/client.js';
import { reviewGraph } from './support/graphs.mjs';
import { rawRequest } from './support/raw-http.js';
import { createStore, type StoreFixture } from './support/stores.js';

/** An address of this machine that is not loopback: a client connecting to it is "on another machine". */
function outsideAddress(): string {
  const found = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal);
  if (found === undefined)
    throw new Error('this test needs a network interface with a non-loopback IPv4 address');
  return found.address;
}

const code = (body: string) => (JSON.parse(body) as { error?: { code: string } }).error?.code;

/** `token: false`: the handler itself answers this machine only, wherever it is mounted. */
describe('a handler without a token', () => {
  let fixture: StoreFixture;
  let store: Checkpointer;
  let app: ReturnType<typeof reviewGraph>;
  let handler: FlowHandler;
  beforeAll(async () => {
    fixture = await createStore('sqlite');
    store = fixture.open();
    app = reviewGraph(store);
    handler = createHandler({ graphs: { pipeline: app }, token: false });
  });
  afterAll(async () => {
    await store?.close();
    await fixture?.cleanup();
  });

  it('wrapped in a function of the user’s, serve cannot tell it is open, yet a client on another machine gets 401', async () => {
    const wrapped: FlowHandler = (request) => handler(request);
    await expect(serve(handler, { port: 0, host: '0.0.0.0' })).rejects.toThrow(/loopback address only/);
    const server = await serve(wrapped, { port: 0, host: '0.0.0.0' });
    try {
      const local = await rawRequest('127.0.0.1', server.port, {
        path: '/api/graphs',
        headers: [['host', `localhost:${server.port}`]],
      });
      expect(local.status).toBe(200);
      // A client elsewhere may send any Host it likes: the address it comes from decides.
      const remote = await rawRequest(outsideAddress(), server.port, {
        path: '/api/graphs',
        headers: [['host', `localhost:${server.port}`]],
      });
      expect(remote.status).toBe(401);
      expect(code(remote.body)).toBe('UNAUTHORIZED');
    } finally {
      await server.close();
    }
  });

  it('refuses a Host that is not one loopback name, wrapped or not, in any server (DNS rebinding)', async () => {
    const server = await serve((request) => handler(request), { port: 0 });
    try {
      for (const hosts of [['evil.example:80'], [`localhost:${server.port}`, 'evil.example']]) {
        const answer = await rawRequest('127.0.0.1', server.port, {
          path: '/api/graphs',
          headers: hosts.map((h) => ['host', h]),
        });
        expect([hosts, answer.status]).toEqual([hosts, 401]);
      }
    } finally {
      await server.close();
    }
    // Mounted in another Fetch server, the URL carries the Host it was asked for.
    expect((await handler(new Request('http://evil.example/api/graphs'))).status).toBe(401);
    expect((await handler(new Request('http://localhost:8787/api/graphs'))).status).toBe(200);
    expect((await handler(new Request('http://[::1]/api/graphs'))).status).toBe(200);
    const forged = new Request('http://127.0.0.1/api/graphs', { headers: { host: 'evil.example' } });
    expect((await handler(forged)).status).toBe(401);
  });

  it('refuses a page of another origin, which a browser lets post without asking (no-cors): nothing is answered', async () => {
    const started = await app.invoke({ topic: 'owls', log: [] }, { thread: 'csrf' });
    expect(started.status).toBe('interrupted');
    const resume = (origin: string, target = handler) =>
      target(
        new Request(`http://127.0.0.1:8787${path('graphs', 'pipeline', 'runs', 'csrf', 'resume')}`, {
          method: 'POST',
          headers: { origin, 'content-type': 'text/plain' },
          body: JSON.stringify({ answer: 'approve' }),
        }),
      );
    for (const origin of ['https://evil.example', 'null', 'http://127.0.0.1.evil.example']) {
      const refused = await resume(origin);
      expect([origin, refused.status]).toEqual([origin, 401]);
      expect(code(await refused.text())).toBe('UNAUTHORIZED');
    }
    expect((await app.getState('csrf'))?.interrupted).toBe(true);
    // An origin the user configured is theirs to allow.
    const ops = createHandler({
      graphs: { pipeline: app },
      token: false,
      corsOrigins: ['https://ops.example.com'],
    });
    expect((await resume('https://evil.example', ops)).status).toBe(401);
    const answered = await resume('https://ops.example.com', ops);
    expect(answered.status).toBe(200);
    expect(((await answered.json()) as { status: string }).status).toBe('done');
    // The UI's own page, served on loopback, is a loopback origin.
    await app.invoke({ topic: 'owls', log: [] }, { thread: 'csrf' });
    const own = await resume('http://127.0.0.1:8787');
    expect(own.status).toBe(200);
  });
});
