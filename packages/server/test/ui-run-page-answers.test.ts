import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSuite } from './support/browser-suite.js';
import { twoQuestionsGraph } from './support/graphs.mjs';

const TOKEN = 'run-page-answers-token';

// A run that asks twice: once the first question is answered on its run page (or by someone else), the
// page asks the next one, without a reload (its "Open the run" link is the page itself).
describe('answering on the run page of a run that asks again, in headless Chromium', () => {
  const suite = browserSuite({
    token: TOKEN,
    graphs: async ([store]) => {
      const app = twoQuestionsGraph(store);
      for (const thread of ['asks twice', 'asks twice/two tabs']) await app.invoke({ log: [] }, { thread });
      return { two: app };
    },
  });

  async function openRun(thread: string): Promise<Page> {
    const page = await suite.openTab(`/#/run?graph=two&thread=${encodeURIComponent(thread)}`);
    await page.locator('section.approval p.asked').waitFor();
    return page;
  }
  const asked = (page: Page) => page.locator('section.approval p.asked').allTextContents();

  it('asks the next question once the first is answered, and answers it', async () => {
    const page = await openRun('asks twice');
    expect(await asked(page)).toEqual(['first?']);
    await page.getByLabel('Your answer').fill('one');
    await page.getByRole('button', { name: 'Send answer' }).click();
    await page.getByText('Answered — the run is waiting again').waitFor();
    await expect.poll(() => asked(page)).toEqual(['second?']);
    expect(await page.getByRole('button', { name: 'Send answer' }).isEnabled()).toBe(true);
    await page.getByLabel('Your answer').fill('two');
    await page.getByRole('button', { name: 'Send answer' }).click();
    await page.getByText('Answered — the run is done').waitFor();
    await page.locator('p.meta .badge.done').waitFor();
    expect((await suite.stores[0].get('asks twice'))?.state).toMatchObject({ log: ['ask:one', 'check:two'] });
    await page.close();
  });

  it('after "Already answered", shows the question the run waits on now', async () => {
    const first = await openRun('asks twice/two tabs');
    const second = await openRun('asks twice/two tabs');
    await first.getByLabel('Your answer').fill('from the first tab');
    await first.getByRole('button', { name: 'Send answer' }).click();
    await first.getByText('Answered — the run is waiting again').waitFor();
    await second.getByLabel('Your answer').fill('too late');
    await second.getByRole('button', { name: 'Send answer' }).click();
    await second.getByText('Already answered.').waitFor();
    await expect.poll(() => asked(second)).toEqual(['second?']);
    expect(await second.getByRole('button', { name: 'Send answer' }).isEnabled()).toBe(true);
    await first.close();
    await second.close();
  });
});
