import { describe, expect, it } from 'vitest';
import { browserSuite } from './support/browser-suite.js';
import { reviewGraph } from './support/graphs.mjs';

const TOKEN = 'inbox-more-token';
const WAITING = 25; // more than the inbox's page of 20

// The inbox lists 20 runs a graph at first and says "20+"; "More" loads the rest, and the count follows
// what is shown: exact once no graph has another page.
describe('the inbox count after "More", in headless Chromium', () => {
  const suite = browserSuite({
    token: TOKEN,
    graphs: async ([store]) => {
      const app = reviewGraph(store);
      for (let i = 0; i < WAITING; i++) {
        const thread = `post-${String(i).padStart(2, '0')}`;
        await app.invoke({ topic: thread, log: [] }, { thread });
      }
      return { pipeline: app };
    },
  });

  it('says 20+ for a first page, and the exact count once "More" has shown every run', async () => {
    const page = await suite.openTab('/#/inbox');
    const summary = page.locator('main p.muted').first();
    await page.getByText('20+ waiting for an answer.').waitFor();
    expect(await page.locator('article.approval').count()).toBe(20);

    await page.getByRole('button', { name: 'More from pipeline' }).click();
    await page.getByText(`${WAITING} waiting for an answer.`).waitFor();
    expect(await summary.textContent()).toBe(`${WAITING} waiting for an answer.`);
    expect(await page.locator('article.approval').count()).toBe(WAITING);
    expect(await page.getByRole('button', { name: 'More from pipeline' }).count()).toBe(0);
    await page.close();
  });
});
