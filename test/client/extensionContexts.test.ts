import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { createBrokerClient } from '../../client/index.js';
import { createExtensionClient, startExtensionBroker } from '../../client/extension/index.js';
import { inExtensionBackground } from '../../contract/extensionBackground.js';
import { extensionApi } from '../../contract/webExtension.js';

/**
 * jsdom as one of an extension's own documents: its location replaced by a chrome-extension:// or
 * moz-extension:// one (jsdom itself refuses such origins), and the extension API faked.
 */
const EXTENSION_ID = 'nkfhlofegonjdoefllidhjigbpeabaen';
const FIREFOX_UUID = '6a1f3a52-27d4-4a49-9d43-3c7e2b7a1e01';
const options = {
  baseUrl: 'http://127.0.0.1:9',
  projectId: '27581ab5-090d-4de0-a603-9893113cd548',
  publishableClientKey: 'pck_xv3w9hr05qc74yhz1es3ne3shtfd2qf25wc752sz007bb',
};
const g = globalThis as { chrome?: unknown; browser?: unknown; PublicKeyCredential?: unknown };
const listeners = () => ({ addListener: () => undefined, removeListener: () => undefined });
const pageLocation = Object.getOwnPropertyDescriptor(globalThis, 'location')!;

afterEach(() => {
  Object.defineProperty(globalThis, 'location', pageLocation);
  delete g.chrome;
  delete g.browser;
  delete g.PublicKeyCredential;
});

/** This document is `href`, in an extension whose manifest runs its background as `background`. */
function inExtensionDocument(
  href: string,
  background: { service_worker?: string; scripts?: string[]; page?: string } = {
    service_worker: 'background.js',
    scripts: ['background.js'],
  },
): void {
  const url = new URL(href);
  Object.defineProperty(globalThis, 'location', {
    configurable: true,
    value: { href, origin: `${url.protocol}//${url.host}`, protocol: url.protocol, pathname: url.pathname },
  });
  const api = {
    runtime: {
      id: url.protocol === 'moz-extension:' ? 'demo-extension@authbroker.dev' : EXTENSION_ID,
      getURL: (path: string) => `${url.protocol}//${url.host}/${path}`,
      getManifest: () => ({ manifest_version: 3, background }),
      connect: () => ({
        onMessage: listeners(),
        onDisconnect: listeners(),
        postMessage: () => undefined,
        disconnect: () => undefined,
      }),
      onConnect: listeners(),
    },
  };
  delete g.browser;
  delete g.chrome;
  if (url.protocol === 'moz-extension:') g.browser = api;
  else g.chrome = api;
}

describe('which context of an extension this is', () => {
  it('Firefox runs background.scripts in a page of its own: that page is the background, the popup is a page', () => {
    inExtensionDocument(`moz-extension://${FIREFOX_UUID}/_generated_background_page.html`);
    expect(inExtensionBackground(extensionApi()!)).toBe(true);
    inExtensionDocument(`moz-extension://${FIREFOX_UUID}/popup.html`);
    expect(inExtensionBackground(extensionApi()!)).toBe(false);
    inExtensionDocument(`chrome-extension://${EXTENSION_ID}/bg.html`, { page: 'bg.html' });
    expect(inExtensionBackground(extensionApi()!)).toBe(true);
  });

  it('in the background, createExtensionClient (a port to itself, never answered) and createBrokerClient are refused, naming startExtensionBroker', async () => {
    inExtensionDocument(`moz-extension://${FIREFOX_UUID}/_generated_background_page.html`);
    expect(() => createExtensionClient(options)).toThrow(
      /in the background, use the client startExtensionBroker returns/,
    );
    // A page-based broker there would be a second one beside the extension's: refused, not hosted in a SharedWorker of
    // the background's.
    await expect(createBrokerClient(options).connect()).rejects.toMatchObject({
      code: 'BROKER_UNAVAILABLE',
      message: expect.stringMatching(/call startExtensionBroker from 'authbroker\/extension'/),
    });
  });
});

describe('passkeys in an extension', () => {
  it('are unavailable in its pages and its background, even where the browser has WebAuthn, and say why before asking the service', async () => {
    // A browser with WebAuthn: what decides is where the page is (the service trusts only http and https sites), not
    // the browser.
    g.PublicKeyCredential = function PublicKeyCredential() {};
    inExtensionDocument(`chrome-extension://${EXTENSION_ID}/popup.html`);
    for (const client of [createExtensionClient(options), startExtensionBroker(options)]) {
      expect(client.passkeysAvailable).toBe(false);
      await expect(client.registerPasskey()).rejects.toMatchObject({
        code: 'PASSKEYS_UNAVAILABLE',
        message: expect.stringMatching(/trusted domains \(http or https sites\)/),
      });
      await expect(client.signInWithPasskey()).rejects.toMatchObject({ code: 'PASSKEYS_UNAVAILABLE' });
      client.close();
    }
  });
});
