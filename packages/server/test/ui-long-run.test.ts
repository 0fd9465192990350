import { END, START, StateGraph } from '@flow/graph';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { signIn } from './support/browser.js';
import { browserSuite } from './support/browser-suite.js';

const TOKEN = 'long-run-token';
const LAST = 250;

// The timeline loads 100 steps at a time; the diff's step pickers must still offer every step it shows.
describe('the run page of a run longer than one page of history, in headless Chromium', () => {
  const suite = browserSuite({
    token: TOKEN,
    graphs: async ([store]) => {
      const app = new StateGraph<{ n?: number }>({})
        .addNode('count', (s) => ({ n: (s.n ?? 0) + 1 }))
        .addEdge(START, 'count')
        .addConditionalEdges('count', (s) => ((s.n ?? 0) >= LAST ? END : 'count'))
        .compile({ checkpointer: store, maxSteps: 1000 });
      await app.invoke({}, { thread: 'long/run' });
      return { counter: app };
    },
  });

  async function openRun(query: string): Promise<Page> {
    const page = await suite.context.newPage();
    await page.goto(`${suite.server.url}/#/run?graph=counter&thread=long%2Frun&${query}`);
    if (await page.getByLabel('Token').count()) await signIn(page, TOKEN);
    await page.locator('details.state summary').waitFor();
    return page;
  }
  const picked = async (page: Page) => [
    await page.locator('#diff-from').inputValue(),
    await page.locator('#diff-to').inputValue(),
  ];

  it('offers the older steps in the diff once the timeline has loaded them', async () => {
    const page = await openRun('');
    expect(await page.locator('.timeline li').count()).toBe(100);
    for (let i = 0; i < 2; i++) {
      const before = await page.locator('.timeline li').count();
      await page.getByRole('button', { name: 'Older steps' }).click();
      await expect.poll(() => page.locator('.timeline li').count()).toBeGreaterThan(before);
    }
    await expect.poll(() => page.locator('.timeline li').count()).toBe(LAST + 1);
    expect(await page.locator('#diff-from option').count()).toBe(LAST + 1);
    await page.locator('#diff-from').selectOption('0');
    await page.locator('#diff-to').selectOption(String(LAST));
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.getByText(`Full state at step ${LAST}`).waitFor();
    await expect.poll(() => picked(page)).toEqual(['0', String(LAST)]);
    const row = page.locator('table.diff tr', { has: page.getByRole('cell', { name: '/n' }) });
    expect(await row.locator('td').allTextContents()).toEqual(['added', '/n', '—', String(LAST)]);
    await page.close();
  });

  it('shows the steps it compares in the pickers, older than the loaded page too', async () => {
    const page = await openRun('to=5');
    await page.getByText('Full state at step 5').waitFor();
    expect(await picked(page)).toEqual(['4', '5']);
    // Compare again as shown: the same two steps, not the latest.
    await page.locator('form.compare').evaluate((form) => form.setAttribute('data-old', ''));
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.locator('form.compare:not([data-old])').waitFor();
    await page.getByText('Full state at step 5').waitFor();
    expect(await picked(page)).toEqual(['4', '5']);
    await page.close();

    const both = await openRun(`from=0&to=${LAST}`);
    await both.getByText(`Full state at step ${LAST}`).waitFor();
    expect(await picked(both)).toEqual(['0', String(LAST)]);
    await both.close();
  });
});
