import type { BrowserContext, Page } from 'playwright-core';

/**
 * Opens a demo page in `context` and waits until the app and its broker client are up; page errors are logged under
 * `label`.
 */
export async function openDemoPage(
  context: BrowserContext,
  url: string,
  label: string,
  timeout = 15_000,
): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (error) => console.error(`[${label}] page error: ${error.message}`));
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as { __authbroker?: unknown }).__authbroker !== undefined, null, {
    timeout,
  });
  return page;
}
