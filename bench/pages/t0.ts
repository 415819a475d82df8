/**
 * "Script start": performance.now() taken by the first statement of the page's bundle (an esbuild
 * banner, see bench/browser.ts); this module, imported first by every page, hands it over.
 */
const g = globalThis as unknown as { __benchT0?: number; __benchT0Epoch?: number };
export const scriptStart = { t0: g.__benchT0 ?? performance.now(), t0Epoch: g.__benchT0Epoch ?? Date.now() };
