import { afterEach, describe, expect, it, vi } from 'vitest';
import { createBrokerClient } from '../../client/index.js';
import { checkRedirectTarget, readReturnTo } from '../../client/redirects.js';
import { handlerUrls, handlerPaths } from '../../client/handlerUrls.js';
import { createExtensionClient } from '../../client/extension/index.js';
import { createContentScriptClient } from '../../client/extension/content.js';
import { noWindowProblem } from '../../client/pageClient.js';
import { inContentScript as isContentScript } from '../../contract/webExtension.js';

/** The emulator's demo project, as an extension's shared options name it (nothing is sent in these tests). */
const demoOptions = () => ({
  baseUrl: 'http://127.0.0.1:8102',
  projectId: '27581ab5-090d-4de0-a603-9893113cd548',
  publishableClientKey: 'pck_xv3w9hr05qc74yhz1es3ne3shtfd2qf25wc752sz007bb',
});

/**
 * jsdom is a web page at http://localhost:3000; an extension's `chrome.runtime` (with an id) turns it into a content
 * script.
 */
const g = globalThis as { chrome?: unknown };
afterEach(() => {
  delete g.chrome;
});

function inContentScript(): void {
  g.chrome = {
    runtime: {
      id: 'nkfhlofegonjdoefllidhjigbpeabaen',
      getURL: (p: string) => `chrome-extension://nkfhlofegonjdoefllidhjigbpeabaen/${p}`,
      connect: () => ({}),
      onConnect: {},
    },
  };
}

describe('where a client may run', () => {
  it('createBrokerClient refuses a content script, naming the content entry, before anything touches the page’s storage', () => {
    inContentScript();
    localStorage.clear();
    expect(isContentScript()).toBe(true);
    expect(() => createBrokerClient(demoOptions())).toThrow(
      /createContentScriptClient from 'authbroker\/extension\/content'/,
    );
    expect(localStorage.length).toBe(0);
  });

  it('a web page that sees chrome.runtime without an id (an externally connectable site) is a page', () => {
    g.chrome = { runtime: { connect: () => ({}) } };
    expect(isContentScript()).toBe(false);
    expect(() => createBrokerClient(demoOptions()).close()).not.toThrow();
  });

  it('the extension pages’ entry is refused in a content script, and both extension entries outside an extension', () => {
    inContentScript();
    expect(() => createExtensionClient(demoOptions())).toThrow(/createContentScriptClient/);
    delete g.chrome;
    expect(() => createExtensionClient(demoOptions())).toThrow(/runs in a browser extension/);
    expect(() => createContentScriptClient(demoOptions())).toThrow(
      /runs in a browser extension.*MAIN world has none: run it in the ISOLATED world/,
    );
  });

  it("'memory' is refused in an extension, pointing to 'session'", () => {
    inContentScript();
    expect(() => createContentScriptClient({ ...demoOptions(), tokenStore: 'memory' as never })).toThrow(
      /'session' keeps it/,
    );
  });

  it('names the way out where no page-based host can start: a worker, an extension background, server rendering', () => {
    expect(noWindowProblem(undefined)).toBeNull();
    expect(noWindowProblem('in-process')).toBeNull();
    // Neither window nor document: a worker (a Chromium extension's background is one) or a server.
    vi.stubGlobal('window', undefined);
    vi.stubGlobal('document', undefined);
    try {
      expect(noWindowProblem(undefined)).toMatch(
        /not in server rendering; in a worker, pass mode: 'in-process' \(in an extension's background, use startExtensionBroker\)/,
      );
      expect(noWindowProblem('shared-worker')).not.toBeNull();
      expect(noWindowProblem('in-process')).toBeNull();
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe("an extension's own origin", () => {
  const rules = { origin: 'chrome-extension://nkfhlofegonjdoefllidhjigbpeabaen' };
  it('its pages may redirect to its other pages; other extensions and schemes are refused', () => {
    expect(checkRedirectTarget('/options.html', rules)).toBe(
      'chrome-extension://nkfhlofegonjdoefllidhjigbpeabaen/options.html',
    );
    expect(checkRedirectTarget('chrome-extension://nkfhlofegonjdoefllidhjigbpeabaen/popup.html#x', rules)).toMatch(
      /popup\.html#x$/,
    );
    expect(() => checkRedirectTarget('chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/popup.html', rules)).toThrow(
      /UNSAFE|not this app/,
    );
    expect(() => checkRedirectTarget('javascript:alert(1)', rules)).toThrow(/never followed/);
    expect(() => checkRedirectTarget('https://evil.example/', rules)).toThrow(/not this app/);
    expect(
      readReturnTo(
        'chrome-extension://nkfhlofegonjdoefllidhjigbpeabaen/popup.html?after_auth_return_to=%2Foptions.html',
        rules,
      ),
    ).toBe('/options.html');
  });

  it('handler pages for e-mail links go to the https base the extension names; the others stay its own', () => {
    const urls = handlerUrls(handlerPaths(), rules.origin, 'https://example.com/app/');
    expect(urls.passwordReset).toBe('https://example.com/app/handler/password-reset');
    expect(urls.magicLinkCallback).toBe('https://example.com/app/handler/magic-link-callback');
    expect(urls.signIn).toBe('chrome-extension://nkfhlofegonjdoefllidhjigbpeabaen/handler/sign-in');
  });
});
