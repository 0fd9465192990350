import { createServer, type Server } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { browserSuite } from './support/browser-suite.js';
import { reviewGraph } from './support/graphs.mjs';

/**
 * A server without a token, and a page of another site in a real Chromium: `evil.example` resolves to
 * 127.0.0.1 (as a rebinding attacker's name would), so the browser reaches our server both from that site's
 * page and under that name.
 */
describe('without a token, in headless Chromium: another site cannot act through the browser', () => {
  let evil: Server;
  /** The Origin of every request that reached the handler. */
  const origins: (string | null)[] = [];

  // Registered before the suite's hooks so that it runs after them (afterAll hooks run in reverse): once
  // the browser, with its connections to evil, has closed.
  afterAll(() => new Promise((resolve) => (evil ? evil.close(resolve) : resolve(undefined))));
  const suite = browserSuite({
    token: false,
    flags: ['--host-resolver-rules=MAP evil.example 127.0.0.1'],
    graphs: async ([store]) => ({ pipeline: reviewGraph(store) }),
    onRequest: (request) => origins.push(request.headers.get('origin')),
  });

  it('a page of evil.example posting an answer without asking (no-cors) answers nothing', async () => {
    const run = await suite.graphs.pipeline.invoke({ topic: 'owls', log: [] }, { thread: 'csrf' });
    expect(run.status).toBe('interrupted');
    const target = `${suite.server.url}/api/graphs/pipeline/runs/csrf/resume`;
    const html = `<!doctype html><title>evil</title><script>
      fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors',
        headers: { 'content-type': 'text/plain' }, body: '{"answer":"approve"}' })
        .then(() => { document.title = 'sent'; }, () => { document.title = 'failed'; });
    </script>`;
    evil = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    const port = (evil.address() as { port: number }).port;
    const page = await suite.context.newPage();
    await page.goto(`http://evil.example:${port}/`);
    await expect.poll(() => page.title()).not.toBe('evil');
    // The browser did send it, from that site's origin; the handler refused it.
    expect(origins).toContain(`http://evil.example:${port}`);
    expect((await suite.graphs.pipeline.getState('csrf'))?.interrupted).toBe(true);
  });

  it('the UI and the API under a rebound name answer 401', async () => {
    const page = await suite.context.newPage();
    const answer = await page.goto(`http://evil.example:${suite.server.port}/`);
    expect(answer?.status()).toBe(401);
    const api = await page.evaluate(async () => (await fetch('/api/graphs')).status);
    expect(api).toBe(401);
  });
});
