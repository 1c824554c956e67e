import type { Page } from 'playwright-core';

/** What the console tests wait for a page to show. */
export const WAIT = { timeout: 20_000 };

export type Tab = Page & { errors: string[] };

/**
 * Polls until `check` holds. The page's own waitForFunction evaluates a string with eval, which
 * the console's content security policy refuses, as it should.
 */
export async function until(check: () => Promise<boolean>, what: string, timeoutMs = WAIT.timeout): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Signs in on the console's own form with a person's token. */
export async function signIn(page: Tab, base: string, token: string): Promise<void> {
  await page.goto(`${base}/console/`);
  await page.getByLabel('Token', { exact: true }).fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('signed-in-as').waitFor(WAIT);
}

/** The links of the console's main navigation, as a person reads them. */
export async function navLinks(page: Tab): Promise<string[]> {
  return page.getByRole('navigation', { name: 'Console' }).getByRole('link').allInnerTexts();
}
