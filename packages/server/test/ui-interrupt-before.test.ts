import { END, START, StateGraph } from '@flow/graph';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSuite } from './support/browser-suite.js';

const TOKEN = 'interrupt-before-token';

// A run stopped by `interruptBefore` waits for no answer (its `interrupts` is `[]`; the API refuses one):
// the inbox offers to continue it. A node that asks `interrupt(null)` still gets an answer form.
describe('a run stopped before a node, in the inbox of headless Chromium', () => {
  const suite = browserSuite({
    token: TOKEN,
    // Each graph its own store: two graphs on one store would list each other's threads.
    stores: 2,
    graphs: async ([stopsStore, asksStore]) => {
      const stops = new StateGraph<{ drafted?: boolean; published?: boolean; answer?: unknown }>({})
        .addNode('draft', () => ({ drafted: true }))
        .addNode('publish', () => ({ published: true }))
        .addEdge(START, 'draft')
        .addEdge('draft', 'publish')
        .addEdge('publish', END)
        .compile({ checkpointer: stopsStore, interruptBefore: ['publish'] });
      await stops.invoke({}, { thread: 'stopped/before publish' });
      const asks = new StateGraph<{ answer?: unknown }>({})
        .addNode('ask', (_s, ctx) => ({ answer: ctx.interrupt(null) }))
        .addEdge(START, 'ask')
        .addEdge('ask', END)
        .compile({ checkpointer: asksStore });
      await asks.invoke({}, { thread: 'asks null' });
      return { stops, asks };
    },
  });

  async function openInbox(): Promise<Page> {
    const page = await suite.openTab('/#/inbox');
    await page.locator('article.approval').first().waitFor();
    return page;
  }

  it('offers to continue a run stopped by interruptBefore, and continues it', async () => {
    const page = await openInbox();
    const card = page.locator('article.approval', { hasText: 'stopped/before publish' });
    await card.getByText('The run paused before publish.').waitFor();
    expect(await card.getByLabel('Your answer').count()).toBe(0);
    expect(await card.locator('pre.json').count()).toBe(0);
    await card.getByRole('button', { name: 'Continue the run' }).click();
    await card.getByText('Continued — the run is done').waitFor();
    expect((await suite.stores[0].get('stopped/before publish'))?.state).toMatchObject({ published: true });
    await page.close();
  });

  it('still asks for an answer when a node calls interrupt(null)', async () => {
    const page = await openInbox();
    const card = page.locator('article.approval', { hasText: 'asks null' });
    await card.getByLabel('Your answer').fill('yes');
    await card.getByRole('button', { name: 'Send answer' }).click();
    await card.getByText('Answered — the run is done').waitFor();
    expect((await suite.stores[1].get('asks null'))?.state).toMatchObject({ answer: 'yes' });
    await page.close();
  });
});
