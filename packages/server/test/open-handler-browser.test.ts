import { createServer, type Server } from 'node:http';
import type { Checkpointer } from '@flow/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandler, type FlowServer, serve } from '../src/index.js';
import { launchBrowser } from './support/browser.js';
import { reviewGraph } from './support/graphs.mjs';
import { createStore, type StoreFixture } from './support/stores.js';

/**
 * A server without a token, and a page of another site in a real Chromium: `evil.example` resolves to
 * 127.0.0.1 (as a rebinding attacker's name would), so the browser reaches our server both from that site's
 * page and under that name.
 */
describe('without a token, in headless Chromium: another site cannot act through the browser', () => {
  let fixture: StoreFixture;
  let store: Checkpointer;
  let app: ReturnType<typeof reviewGraph>;
  let server: FlowServer;
  let evil: Server;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  /** The Origin of every request that reached the handler. */
  const origins: (string | null)[] = [];

  beforeAll(async () => {
    fixture = await createStore('sqlite');
    store = fixture.open();
    app = reviewGraph(store);
    const handler = createHandler({ graphs: { pipeline: app }, token: false });
    server = await serve(
      (request) => {
        origins.push(request.headers.get('origin'));
        return handler(request);
      },
      { port: 0 },
    );
    browser = await launchBrowser(['--host-resolver-rules=MAP evil.example 127.0.0.1']);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((resolve) => (evil ? evil.close(resolve) : resolve(undefined)));
    await store?.close();
    await fixture?.cleanup();
  });

  it('a page of evil.example posting an answer without asking (no-cors) answers nothing', async () => {
    const run = await app.invoke({ topic: 'owls', log: [] }, { thread: 'csrf' });
    expect(run.status).toBe('interrupted');
    const target = `${server.url}/api/graphs/pipeline/runs/csrf/resume`;
    const html = `<!doctype html><title>evil</title><script>
      fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors',
        headers: { 'content-type': 'text/plain' }, body: '{"answer":"approve"}' })
        .then(() => { document.title = 'sent'; }, () => { document.title = 'failed'; });
    </script>`;
    evil = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    const port = (evil.address() as { port: number }).port;
    const page = await browser.context.newPage();
    await page.goto(`http://evil.example:${port}/`);
    await expect.poll(() => page.title()).not.toBe('evil');
    // The browser did send it, from that site's origin; the handler refused it.
    expect(origins).toContain(`http://evil.example:${port}`);
    expect((await app.getState('csrf'))?.interrupted).toBe(true);
  });

  it('the UI and the API under a rebound name answer 401', async () => {
    const page = await browser.context.newPage();
    const answer = await page.goto(`http://evil.example:${server.port}/`);
    expect(answer?.status()).toBe(401);
    const api = await page.evaluate(async () => (await fetch('/api/graphs')).status);
    expect(api).toBe(401);
  });
});
