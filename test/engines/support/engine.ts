/**
 * What a cross-engine scenario drives, whatever the browser: profiles (a person's own storage),
 * tabs in them, and code run in a tab. Chromium and Firefox are driven through puppeteer-core
 * (CDP, WebDriver BiDi), WebKit through WebKitWebDriver (W3C WebDriver classic); see
 * BROWSER-NOTES.md for why these and not Playwright.
 */
export type EngineName = 'chromium' | 'firefox' | 'webkit';

export const ENGINE_NAMES: readonly EngineName[] = ['chromium', 'firefox', 'webkit'];

export interface EngineTab {
  /**
   * Runs `fn(arg)` in the page and resolves with its result (plain data). `fn` is sent as source
   * text: it must use nothing from the test's scope but `arg`.
   */
  evaluate<A, R>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R>;
  /** Reloads the page; resolves once it has loaded. */
  reload(): Promise<void>;
  close(): Promise<void>;
}

export interface EngineProfile {
  /** Opens `url` in a new tab of this profile; resolves once the page has loaded. */
  openTab(url: string): Promise<EngineTab>;
  close(): Promise<void>;
}

export interface Engine {
  readonly name: EngineName;
  /** The browser's own name and version, for the log. */
  readonly version: string;
  /** A fresh profile: nothing stored, no worker shared with another profile. */
  newProfile(): Promise<EngineProfile>;
  close(): Promise<void>;
}
