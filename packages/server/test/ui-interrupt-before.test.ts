import type { Checkpointer } from '@flow/core';
import { END, START, StateGraph } from '@flow/graph';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandler, type FlowServer, serve } from '../src/index.js';
import { launchBrowser, openSignedIn } from './support/browser.js';
import { createStore, type StoreFixture } from './support/stores.js';

const TOKEN = 'interrupt-before-token';

// A run stopped by `interruptBefore` waits for no answer (its `interrupts` is `[]`; the API refuses one):
// the inbox offers to continue it. A node that asks `interrupt(null)` still gets an answer form.
describe('a run stopped before a node, in the inbox of headless Chromium', () => {
  let fixture: StoreFixture;
  let asksFixture: StoreFixture;
  let store: Checkpointer;
  let asksStore: Checkpointer;
  let server: FlowServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;

  async function openInbox(): Promise<Page> {
    const page = await openSignedIn(context, `${server.url}/#/inbox`, TOKEN);
    await page.locator('article.approval').first().waitFor();
    return page;
  }

  beforeAll(async () => {
    fixture = await createStore('sqlite');
    store = fixture.open();
    // Each graph its own store: two graphs on one store would list each other's threads.
    asksFixture = await createStore('sqlite');
    asksStore = asksFixture.open();
    const app = new StateGraph<{ drafted?: boolean; published?: boolean; answer?: unknown }>({})
      .addNode('draft', () => ({ drafted: true }))
      .addNode('publish', () => ({ published: true }))
      .addEdge(START, 'draft')
      .addEdge('draft', 'publish')
      .addEdge('publish', END)
      .compile({ checkpointer: store, interruptBefore: ['publish'] });
    await app.invoke({}, { thread: 'stopped/before publish' });
    const asks = new StateGraph<{ answer?: unknown }>({})
      .addNode('ask', (_s, ctx) => ({ answer: ctx.interrupt(null) }))
      .addEdge(START, 'ask')
      .addEdge('ask', END)
      .compile({ checkpointer: asksStore });
    await asks.invoke({}, { thread: 'asks null' });
    server = await serve(createHandler({ graphs: { stops: app, asks }, token: TOKEN }), { port: 0 });
    browser = await launchBrowser();
    context = browser.context;
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await store?.close();
    await asksStore?.close();
    await fixture?.cleanup();
    await asksFixture?.cleanup();
  });

  it('offers to continue a run stopped by interruptBefore, and continues it', async () => {
    const page = await openInbox();
    const card = page.locator('article.approval', { hasText: 'stopped/before publish' });
    await card.getByText('The run paused before publish.').waitFor();
    expect(await card.getByLabel('Your answer').count()).toBe(0);
    expect(await card.locator('pre.json').count()).toBe(0);
    await card.getByRole('button', { name: 'Continue the run' }).click();
    await card.getByText('Continued — the run is done').waitFor();
    expect((await store.get('stopped/before publish'))?.state).toMatchObject({ published: true });
    await page.close();
  });

  it('still asks for an answer when a node calls interrupt(null)', async () => {
    const page = await openInbox();
    const card = page.locator('article.approval', { hasText: 'asks null' });
    await card.getByLabel('Your answer').fill('yes');
    await card.getByRole('button', { name: 'Send answer' }).click();
    await card.getByText('Answered — the run is done').waitFor();
    expect((await asksStore.get('asks null'))?.state).toMatchObject({ answer: 'yes' });
    await page.close();
  });
});
