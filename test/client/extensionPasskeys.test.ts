import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { createExtensionClient, startExtensionBroker } from '../../client/extension/index.js';

/**
 * jsdom as one of an extension's own pages (its location chrome-extension://…/popup.html; jsdom
 * itself refuses such an origin, so only `location` is replaced). The service accepts
 * a passkey only from a page on one of the project's trusted domains, which are http or https
 * sites: no context of an extension can have one, so the client says so before any ceremony.
 */
const EXTENSION_ID = 'nkfhlofegonjdoefllidhjigbpeabaen';
const options = { baseUrl: 'http://127.0.0.1:9', projectId: '27581ab5-090d-4de0-a603-9893113cd548', publishableClientKey: 'pck_xv3w9hr05qc74yhz1es3ne3shtfd2qf25wc752sz007bb' };
const g = globalThis as { chrome?: unknown; PublicKeyCredential?: unknown };
const listeners = () => ({ addListener: () => undefined, removeListener: () => undefined });

const pageLocation = Object.getOwnPropertyDescriptor(globalThis, 'location')!;
afterEach(() => {
  Object.defineProperty(globalThis, 'location', pageLocation);
  delete g.chrome;
  delete g.PublicKeyCredential;
});

describe('passkeys in an extension', () => {
  it('are unavailable in its pages and its background, even where the browser has WebAuthn, and say why before asking the service', async () => {
    // A browser with WebAuthn: what decides is where the page is, not the browser.
    g.PublicKeyCredential = function PublicKeyCredential() {};
    const href = `chrome-extension://${EXTENSION_ID}/popup.html`;
    Object.defineProperty(globalThis, 'location', { configurable: true, value: { href, origin: `chrome-extension://${EXTENSION_ID}`, protocol: 'chrome-extension:' } });
    g.chrome = { runtime: { id: EXTENSION_ID, getURL: (path: string) => `chrome-extension://${EXTENSION_ID}/${path}`, connect: () => ({ onMessage: listeners(), onDisconnect: listeners(), postMessage: () => undefined, disconnect: () => undefined }), onConnect: listeners() } };
    for (const client of [createExtensionClient(options), startExtensionBroker(options)]) {
      expect(client.passkeysAvailable).toBe(false);
      await expect(client.registerPasskey()).rejects.toMatchObject({ code: 'PASSKEYS_UNAVAILABLE', message: expect.stringMatching(/trusted domains \(http or https sites\)/) });
      await expect(client.signInWithPasskey()).rejects.toMatchObject({ code: 'PASSKEYS_UNAVAILABLE' });
      client.close();
    }
  });
});
