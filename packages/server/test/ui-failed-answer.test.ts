import type { Checkpointer } from '@flow/core';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandler, type FlowServer, serve } from '../src/index.js';
import { launchBrowser, openSignedIn } from './support/browser.js';
import { reviewGraph } from './support/graphs.mjs';
import { createStore, type StoreFixture } from './support/stores.js';

const TOKEN = 'failed-answer-token';

// An answer the run takes and then fails on (a later node throws, 422) was answered: the form says so and
// that the run failed, and the run page shows the run failed, not still waiting.
describe('an answer after which the run fails, in headless Chromium', () => {
  let fixture: StoreFixture;
  let store: Checkpointer;
  let server: FlowServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;

  async function openTab(path: string): Promise<Page> {
    return openSignedIn(context, server.url + path, TOKEN);
  }

  beforeAll(async () => {
    fixture = await createStore('sqlite');
    store = fixture.open();
    const app = reviewGraph(store);
    for (const thread of ['fails/inbox', 'fails/run-page'])
      await app.invoke({ topic: thread, log: [], failAt: 'publish' }, { thread });
    server = await serve(createHandler({ graphs: { pipeline: app }, token: TOKEN }), { port: 0 });
    browser = await launchBrowser();
    context = browser.context;
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await store?.close();
    await fixture?.cleanup();
  });

  it('the inbox says the answer was taken and the run failed, naming the node', async () => {
    const page = await openTab('/#/inbox');
    const card = page.locator('article.approval', { hasText: 'fails/inbox' });
    await card.getByRole('button', { name: 'approve' }).click();
    const outcome = card.locator('.outcome');
    await outcome.waitFor();
    const text = (await outcome.textContent()) ?? '';
    expect(text).toContain('Answered — the run failed');
    expect(text).toContain('node publish');
    expect(text).toContain('the blog is down');
    expect(text).not.toContain('Not answered');
    expect(await outcome.getByRole('link', { name: 'Open the run' }).count()).toBe(1);
    expect((await store.get('fails/inbox'))?.state).toMatchObject({ verdict: 'approve' });
    await page.close();
  });

  it('the run page shows the run failed once the answer is taken', async () => {
    const page = await openTab('/#/run?graph=pipeline&thread=fails%2Frun-page');
    const question = page.locator('section.approval');
    await question.getByRole('button', { name: 'reject' }).click();
    await question.getByText('Answered — the run failed').waitFor();
    await page.locator('p.meta .badge.failed').waitFor();
    expect(await page.locator('p.meta').first().textContent()).toContain(
      'failed at publish: the blog is down',
    );
    await page.close();
  });
});
