import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { signIn } from './support/browser.js';
import { browserSuite } from './support/browser-suite.js';
import { reviewGraph } from './support/graphs.mjs';

const TOKEN = 'ui-token-4f2a';
const XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';
/** Where the screenshots go: the package's `media/` with `pnpm screenshots`, a temp folder otherwise. */
const SHOTS = process.env.FLOW_SCREENSHOTS_DIR
  ? resolve(process.env.FLOW_SCREENSHOTS_DIR)
  : join(tmpdir(), 'flow-server-screenshots');

describe('the web UI in headless Chromium', () => {
  const pageErrors: string[] = [];
  /**
   * Console errors but the API's own answers that the UI handles (a 401 for a wrong token, a 409 for an
   * answer already given): a file the page asks for and does not get (say /favicon.ico) is one.
   */
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
  });
  const suite = browserSuite({
    token: TOKEN,
    graphs: async ([store]) => {
      const app = reviewGraph(store);
      for (let i = 0; i < 28; i++) {
        const thread = `order-${String(i).padStart(3, '0')}`;
        await app.invoke({ topic: `item ${i}`, log: [] }, { thread });
        if (i % 3 === 0) await app.resume(thread, { answer: 'approve' });
      }
      await app.invoke(
        { topic: 'the spring sale', log: [], note: 'Check the prices first.' },
        { thread: 'blog/spring sale #12' },
      );
      await app.invoke({ topic: 'owls', log: [], note: XSS }, { thread: 'xss-check' });
      return { pipeline: app };
    },
  });

  /** Like `suite.openTab`, but listening for errors from before the page loads. */
  async function openTab(path = '/'): Promise<Page> {
    const page = await suite.context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      const url = m.location().url ?? '';
      if (m.type() === 'error' && !url.startsWith(`${suite.server.url}/api/`))
        consoleErrors.push(`${m.text()} (${url})`);
    });
    await page.goto(suite.server.url + path);
    await signIn(page, TOKEN);
    return page;
  }

  it('asks for the token once per tab and keeps it in sessionStorage, not in a cookie', async () => {
    const page = await openTab();
    await expect.poll(() => page.getByRole('heading', { name: 'Approvals' }).isVisible()).toBe(true);
    expect(await page.evaluate('sessionStorage.getItem("flow.token")')).toBe(TOKEN);
    expect(await suite.context.cookies()).toEqual([]);
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { name: 'Approvals' }).isVisible()).toBe(true);
    expect(await page.getByLabel('Token').count()).toBe(0);
    await page.close();
  });

  it('a wrong token is refused and asked again', async () => {
    const page = await suite.context.newPage();
    await page.goto(suite.server.url);
    await page.getByLabel('Token').fill('wrong');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.getByText('That token was not accepted.').isVisible()).toBe(true);
    expect(await page.evaluate('sessionStorage.getItem("flow.token")')).toBeNull();
    await page.close();
  });

  it('lists runs, filters by status, and pages', async () => {
    const page = await openTab('/#/runs');
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    await page.locator('table.runs tbody tr').first().waitFor();
    expect(await page.locator('table.runs tbody tr').count()).toBe(25);
    await page.getByRole('link', { name: 'Next →' }).click();
    await expect.poll(() => page.locator('table.runs tbody tr').count()).toBe(5);
    await page.getByRole('link', { name: '← Previous' }).click();
    await expect.poll(() => page.locator('table.runs tbody tr').count()).toBe(25);
    await page.getByRole('link', { name: 'done', exact: true }).click();
    await expect.poll(() => page.locator('table.runs tbody tr').count()).toBe(10);
    const badges = await page.locator('table.runs tbody .badge').allTextContents();
    expect(new Set(badges)).toEqual(new Set(['done']));
    await page.getByRole('link', { name: 'interrupted', exact: true }).click();
    await expect.poll(() => page.locator('table.runs tbody tr').count()).toBe(20);
    expect(new Set(await page.locator('table.runs tbody .badge').allTextContents())).toEqual(
      new Set(['interrupted']),
    );
    await page.close();
  });

  it('opens a run, shows its timeline, and the diff between two chosen steps', async () => {
    const page = await openTab('/#/runs');
    await page.getByRole('link', { name: 'blog/spring sale #12' }).click();
    await page.getByRole('heading', { name: 'blog/spring sale #12' }).waitFor();
    await expect.poll(() => page.locator('.timeline li').count()).toBe(3);
    // By default: the latest step against the one before it (no change in the state: it only asked).
    await page.getByText('No change in the state between these steps.').waitFor();
    await page.locator('#diff-from').selectOption('0');
    await page.locator('#diff-to').selectOption('2');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.getByRole('cell', { name: '/draft' }).waitFor();
    const row = page.locator('table.diff tr', { has: page.getByRole('cell', { name: '/draft' }) });
    expect(await row.locator('td').allTextContents()).toEqual([
      'added',
      '/draft',
      '—',
      '"A post about the spring sale"',
    ]);
    await page.screenshot({ path: join(SHOTS, 'run-page.png'), fullPage: true });
    await page.close();
  });

  it('answers an interrupt from the inbox and shows the outcome; a second tab sees "already answered"', async () => {
    const first = await openTab('/#/inbox');
    const second = await openTab('/#/inbox');
    const card = (page: Page) => page.locator('article.approval', { hasText: 'blog/spring sale #12' });
    await card(first).waitFor();
    await card(second).waitFor();
    await expect
      .poll(() => card(first).getByText('Publish "A post about the spring sale"?').isVisible())
      .toBe(true);
    await first.screenshot({ path: join(SHOTS, 'inbox.png') });
    await card(first).getByRole('button', { name: 'approve' }).click();
    await card(first).getByText('Answered — the run is done').waitFor();
    await card(second).getByLabel('Your answer').fill('looks good');
    await card(second).getByRole('button', { name: 'Send answer' }).click();
    await card(second).getByText('Already answered.').waitFor();
    // And the run is done, with the first answer.
    await card(first).getByRole('link', { name: 'Open the run' }).click();
    await first.locator('.badge.done').first().waitFor();
    await first.getByText('Full state at step 5').click();
    expect(await first.locator('details.state pre').textContent()).toContain('"verdict": "approve"');
    await first.close();
    await second.close();
  });

  it('answers with JSON from the keyboard', async () => {
    const page = await openTab('/#/inbox');
    const card = page.locator('article.approval', { hasText: 'order-001' });
    await card.getByLabel('Your answer').click();
    await page.keyboard.type('{"ok": true, "by": "kb"}');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space'); // the JSON checkbox
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter'); // Send answer
    await card.getByText('Answered — the run is done').waitFor();
    const state = await suite.stores[0].get('order-001');
    expect((state!.state as { verdict: unknown }).verdict).toEqual({ ok: true, by: 'kb' });
    await page.close();
  });

  it('shows a payload with markup as text, and no script of it runs', async () => {
    const page = await openTab('/#/inbox');
    const card = page.locator('article.approval', { hasText: 'xss-check' });
    await card.waitFor();
    expect(await card.locator('pre.json').textContent()).toContain(XSS.replaceAll('"', '\\"'));
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.locator('main script').count()).toBe(0);
    await page.goto(`${suite.server.url}/#/run?graph=pipeline&thread=xss-check&from=0&to=2`);
    await page.getByRole('heading', { name: 'xss-check' }).waitFor();
    await page.locator('table.diff').waitFor();
    await page.getByText('Full state at step 2').click();
    expect(await page.locator('details.state pre').textContent()).toContain('<img src=x onerror=');
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('logs no console error on any page it opened but the API answers it handles (no missing favicon)', () => {
    expect(consoleErrors).toEqual([]);
  });
});
