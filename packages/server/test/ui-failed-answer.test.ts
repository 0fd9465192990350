import { describe, expect, it } from 'vitest';
import { browserSuite } from './support/browser-suite.js';
import { reviewGraph } from './support/graphs.mjs';

const TOKEN = 'failed-answer-token';

// An answer the run takes and then fails on (a later node throws, 422) was answered: the form says so and
// that the run failed, and the run page shows the run failed, not still waiting.
describe('an answer after which the run fails, in headless Chromium', () => {
  const suite = browserSuite({
    token: TOKEN,
    graphs: async ([store]) => {
      const app = reviewGraph(store);
      for (const thread of ['fails/inbox', 'fails/run-page'])
        await app.invoke({ topic: thread, log: [], failAt: 'publish' }, { thread });
      return { pipeline: app };
    },
  });

  it('the inbox says the answer was taken and the run failed, naming the node', async () => {
    const page = await suite.openTab('/#/inbox');
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
    expect((await suite.stores[0].get('fails/inbox'))?.state).toMatchObject({ verdict: 'approve' });
    await page.close();
  });

  it('the run page shows the run failed once the answer is taken', async () => {
    const page = await suite.openTab('/#/run?graph=pipeline&thread=fails%2Frun-page');
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
