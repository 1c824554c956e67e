import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium package (`apt-get install chromium`; .ci/run installs it). */
export const CHROMIUM = process.env['MEMSTREAM_CHROMIUM'] ?? '/usr/bin/chromium';

/** Quiet and offline: no first-run UI, no background fetches, no updates, no sync, no QUIC. */
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

export interface Browser {
  readonly context: BrowserContext;
  /** A new tab whose uncaught page errors are collected in `errors`. */
  page(viewport?: { width: number; height: number }): Promise<Page & { errors: string[] }>;
  close(): Promise<void>;
}

/** Chromium with a fresh profile of its own (removed on close), driven by playwright-core. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run 'apt-get install -y chromium' as root`);
  const profile = await mkdtemp(join(tmpdir(), 'memstream-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    chromiumSandbox: false,
    args: FLAGS,
    viewport: { width: 1280, height: 800 },
  });
  return {
    context,
    async page(viewport) {
      const page = Object.assign(await context.newPage(), { errors: [] as string[] });
      if (viewport) await page.setViewportSize(viewport);
      page.on('pageerror', (err) => page.errors.push(err.message));
      return page;
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A screenshot of the page as it is, refused when the page shows an error (an alert, or an
 * uncaught exception since it opened): a picture of a broken page proves nothing.
 */
export async function screenshot(page: Page & { errors: string[] }, dir: string, name: string): Promise<string> {
  const alerts = await page.locator('[data-testid="error"]').allInnerTexts();
  if (alerts.length > 0 || page.errors.length > 0)
    throw new Error(`the page shows an error: ${[...alerts, ...page.errors].join(' | ')}`);
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}
