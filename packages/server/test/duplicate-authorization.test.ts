import type { Checkpointer } from '@flow/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandler, type FlowHandler, serve } from '../src/index.js';
import { reviewGraph } from './support/graphs.mjs';
import { rawRequest } from './support/raw-http.js';
import { createStore, type StoreFixture } from './support/stores.js';

/**
 * Two `Authorization` fields are one value joined with ", " (the Fetch API's rule) on every path into the
 * handler, so they never pass for a token: node:http alone would keep the first and let it through.
 */
describe('duplicate Authorization headers', () => {
  let fixture: StoreFixture;
  let store: Checkpointer;
  let handler: FlowHandler;
  beforeAll(async () => {
    fixture = await createStore('sqlite');
    store = fixture.open();
    handler = createHandler({ graphs: { pipeline: reviewGraph(store) }, token: 'tok' });
  });
  afterAll(async () => {
    await store?.close();
    await fixture?.cleanup();
  });

  const cases: [string, string[], number][] = [
    ['one right token', ['Bearer tok'], 200],
    ['the right token twice', ['Bearer tok', 'Bearer tok'], 401],
    ['right, then wrong', ['Bearer tok', 'Bearer nope'], 401],
    ['wrong, then right', ['Bearer nope', 'Bearer tok'], 401],
  ];

  it.each([
    ['serve(handler): node:http read directly', (h: FlowHandler) => h],
    ['serve(a function of the user’s): the Fetch bridge', (h: FlowHandler) => (r: Request) => h(r)],
  ])('through %s', async (_name, mount) => {
    const server = await serve(mount(handler), { port: 0 });
    try {
      for (const [what, fields, status] of cases) {
        const answer = await rawRequest('127.0.0.1', server.port, {
          path: '/api/graphs',
          headers: fields.map((f) => ['authorization', f]),
        });
        expect([what, answer.status]).toEqual([what, status]);
      }
    } finally {
      await server.close();
    }
  });

  it('called in-process with a Request', async () => {
    for (const [what, fields, status] of cases) {
      const headers = new Headers();
      for (const f of fields) headers.append('authorization', f);
      const answer = await handler(new Request('http://x/api/graphs', { headers }));
      expect([what, answer.status]).toEqual([what, status]);
    }
  });
});
