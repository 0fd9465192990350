import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** The system Chromium: never a downloaded one. */
export const CHROMIUM = process.env.FLOW_CHROMIUM ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A headless Chromium on a fresh profile (with `extraFlags`); `close()` ends it and removes the profile. */
export async function launchBrowser(
  extraFlags: readonly string[] = [],
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), 'flow-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...FLAGS, ...extraFlags],
    viewport: { width: 1280, height: 860 },
    deviceScaleFactor: 1,
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Signs in on a page that shows the token form: fills the token and presses Continue. */
export async function signIn(page: Page, token: string): Promise<void> {
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** A new tab of `context` at `url`, signed in with `token`. */
export async function openSignedIn(context: BrowserContext, url: string, token: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url);
  await signIn(page, token);
  return page;
}
