import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeFromJson, encodeForJson } from '../../contract/jsonWire.js';
import {
  EXTENSION_CONTENT_PORT,
  EXTENSION_PAGE_PORT,
  type ExtensionApi,
  type ExtensionStorageArea,
  type PortSender,
  type RuntimePort,
} from '../../contract/webExtension.js';
import { hostExtensionBroker, type ExtensionHostOptions } from '../../worker/hosts/extension.js';
import { emulatorClock, everythingStored, resetIndexedDb } from '../support/broker.js';
import { useEmulator } from '../support/emulator.js';
import { LocalLockManager } from '../support/locks.js';

/**
 * The extension host in Node, with a fake of the extension API that behaves as Chromium's does:
 * ports carry JSON, and the browser sets who opened each one. (The real thing runs in
 * test/extension/, in Chromium and Firefox.)
 */
const emulator = useEmulator();
const EXTENSION_ID = 'nkfhlofegonjdoefllidhjigbpeabaen';
const ORIGIN = `chrome-extension://${EXTENSION_ID}`;
const DEMO = { email: 'demo@authbroker.dev', password: 'demo-password' };
afterEach(resetIndexedDb);

function event<L extends (...args: never[]) => void>() {
  const listeners = new Set<L>();
  return {
    listeners,
    addListener: (l: L) => void listeners.add(l),
    removeListener: (l: L) => void listeners.delete(l),
  };
}

function fakeArea(): ExtensionStorageArea & { items: Map<string, unknown> } {
  const items = new Map<string, unknown>();
  return {
    items,
    get: async (keys) =>
      Object.fromEntries(
        [...items]
          .filter(([key]) => keys === null || (Array.isArray(keys) ? keys.includes(key) : keys === key))
          .map(([k, v]) => [k, structuredClone(v)]),
      ),
    set: async (values) => void Object.entries(values).forEach(([k, v]) => items.set(k, JSON.parse(JSON.stringify(v)))),
    remove: async (keys) => void [keys].flat().forEach((key) => items.delete(key)),
  };
}

function fakeExtension(area = fakeArea()) {
  const onConnect = event<(port: RuntimePort) => void>();
  const extension: ExtensionApi = {
    runtime: {
      id: EXTENSION_ID,
      getURL: (path) => `${ORIGIN}/${path}`,
      connect: () => {
        throw new Error('not in the background');
      },
      onConnect,
    },
    storage: { session: area },
  };
  /** A context opening a port, as the browser delivers it to the background; its side, with the broker's calls. */
  function open(name: string, sender: PortSender) {
    const toBackground = event<(message: unknown, port: RuntimePort) => void>();
    const toContext = event<(message: unknown, port: RuntimePort) => void>();
    const disconnects = event<(port: RuntimePort) => void>();
    const received: unknown[] = [];
    const backgroundSide: RuntimePort = {
      name,
      sender,
      postMessage: (message) =>
        queueMicrotask(() => received.push(decodeFromJson(JSON.parse(JSON.stringify(message))))),
      disconnect: () => disconnects.listeners.forEach((l) => l(backgroundSide)),
      onMessage: toBackground,
      onDisconnect: disconnects,
    };
    void toContext;
    for (const listener of onConnect.listeners) listener(backgroundSide);
    let lastId = 0;
    const call = async (method: string, ...args: unknown[]): Promise<unknown> => {
      const id = `${++lastId}`;
      const message = JSON.parse(
        JSON.stringify(
          encodeForJson({
            id,
            type: 'APPLY',
            path: [method],
            argumentList: args.map((value) => ({ type: 'RAW', value })),
          }),
        ),
      );
      toBackground.listeners.forEach((l) => l(message, backgroundSide));
      for (let i = 0; i < 500; i += 1) {
        const reply = received.find((m) => (m as { id?: string }).id === id) as
          { type: string; value: { authbroker?: { code: string; message: string } } & unknown } | undefined;
        if (reply) {
          if (reply.type === 'RAW') return reply.value;
          throw Object.assign(new Error(reply.value.authbroker?.message ?? 'refused'), {
            code: reply.value.authbroker?.code,
          });
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      throw new Error(`${method}: no answer`);
    };
    return { call, received, close: () => disconnects.listeners.forEach((l) => l(backgroundSide)) };
  }
  return { extension, area, open };
}

function startHost(fake: ReturnType<typeof fakeExtension>, choices: Partial<ExtensionHostOptions> = {}) {
  const em = emulator();
  const config = {
    baseUrl: em.url,
    projectId: em.projects.demo.id,
    publishableClientKey: em.projects.demo.publishableClientKey,
  };
  const host = hostExtensionBroker({
    config,
    tokenStore: 'indexeddb',
    contentScripts: false,
    extension: fake.extension,
    host: { clock: emulatorClock(em), locks: new LocalLockManager() },
    ...choices,
  });
  return { host, config };
}

const PAGE: PortSender = { id: EXTENSION_ID, url: `${ORIGIN}/popup.html`, origin: ORIGIN };
const CONTENT: PortSender = {
  id: EXTENSION_ID,
  url: 'https://news.example/article',
  origin: 'https://news.example',
  tab: { id: 7 },
};

describe('the extension host: who may connect', () => {
  it('serves its own pages; refuses other extensions, and content scripts that pose as pages or that it did not allow', async () => {
    const fake = fakeExtension();
    const { host, config } = startHost(fake);
    const page = fake.open(EXTENSION_PAGE_PORT, PAGE);
    expect(await page.call('connect', config, { version: 'test' })).toMatchObject({
      methods: expect.arrayContaining(['signInWithPassword', 'getAccessToken']),
    });
    await expect(
      fake.open(EXTENSION_PAGE_PORT, { ...PAGE, id: 'another-extension' }).call('connect', config, { version: 'test' }),
    ).rejects.toMatchObject({ code: 'EXTENSION_CONTEXT_REFUSED' });
    await expect(fake.open(EXTENSION_PAGE_PORT, CONTENT).call('connect', config, { version: 'test' })).rejects.toThrow(
      /Only the extension’s own pages/,
    );
    await expect(
      fake.open(EXTENSION_CONTENT_PORT, CONTENT).call('connect', config, { version: 'test' }),
    ).rejects.toThrow(/does not let content scripts/);
    // A port of the extension's own code (another name) is none of the broker's business.
    expect(fake.open('something-else', PAGE).received).toEqual([]);
    expect(host.connected()).toEqual({ page: 1, 'content-script': 0 });
  });

  it('a page asking for another project is refused', async () => {
    const fake = fakeExtension();
    const { config } = startHost(fake);
    const other = { ...config, projectId: '00000000-0000-4000-8000-000000000000' };
    await expect(fake.open(EXTENSION_PAGE_PORT, PAGE).call('connect', other, { version: 'test' })).rejects.toThrow(
      /projectId .* is not the running broker's/,
    );
  });

  it('content scripts get the user, the session and sign-out; an access token only on opt-in; nothing else', async () => {
    const fake = fakeExtension();
    const { config } = startHost(fake, { contentScripts: {} });
    const page = fake.open(EXTENSION_PAGE_PORT, PAGE);
    await page.call('connect', config, { version: 'test' });
    await page.call('signInWithPassword', DEMO);
    const content = fake.open(EXTENSION_CONTENT_PORT, CONTENT);
    expect(
      ((await content.call('connect', config, { version: 'test' })) as { methods: string[] }).methods.sort(),
    ).toEqual(['goodbye', 'read', 'signOut', 'subscribe', 'unsubscribe']);
    expect(await content.call('read', { kind: 'currentUser' })).toMatchObject({ primaryEmail: DEMO.email });
    await expect(content.call('read', { kind: 'teams' })).rejects.toMatchObject({ code: 'EXTENSION_CONTEXT_REFUSED' });
    await expect(content.call('subscribe', 's1', { kind: 'contactChannels' })).rejects.toMatchObject({
      code: 'EXTENSION_CONTEXT_REFUSED',
    });
    await expect(content.call('getAccessToken')).rejects.toThrow(/no method/);
    await expect(content.call('updateUser', { displayName: 'x' })).rejects.toThrow(/no method/);

    const withTokens = fakeExtension();
    const second = startHost(withTokens, { contentScripts: { accessToken: true, signOut: false } });
    const script = withTokens.open(EXTENSION_CONTENT_PORT, CONTENT);
    expect(
      ((await script.call('connect', second.config, { version: 'test' })) as { methods: string[] }).methods,
    ).toContain('getAccessToken');
    await expect(script.call('signOut')).rejects.toThrow(/no method/);
  });

  it("without an https handler base, a call that would e-mail a link to the extension's own pages says what to give", async () => {
    const fake = fakeExtension();
    const { config } = startHost(fake);
    const page = fake.open(EXTENSION_PAGE_PORT, PAGE);
    await page.call('connect', config, { version: 'test' });
    await expect(page.call('sendMagicLink', { email: 'someone@example.com' })).rejects.toThrow(/handlerBaseUrl/);
  });
});

describe('one broker per background', () => {
  it('a second start in the same background is refused before it registers anything: each page call would be made twice', async () => {
    const fake = fakeExtension();
    const { config } = startHost(fake);
    const onConnect = fake.extension.runtime.onConnect as unknown as { listeners: Set<unknown> };
    expect(onConnect.listeners.size).toBe(1);
    expect(() => startHost(fake)).toThrow(/startExtensionBroker was already called in this background/);
    expect(onConnect.listeners.size).toBe(1);
    // The first broker serves on, alone.
    const page = fake.open(EXTENSION_PAGE_PORT, PAGE);
    await page.call('connect', config, { version: 'test' });
    await page.call('signInWithPassword', DEMO);
    expect(page.received.filter((message) => (message as { type?: string }).type === 'RAW')).toHaveLength(2);
  });
});

describe("tokenStore: 'session' (storage.session)", () => {
  it('keeps the session there, never in IndexedDB, and a restarted background picks it up without signing in', async () => {
    const fake = fakeExtension();
    const { config } = startHost(fake, { tokenStore: 'session' });
    const page = fake.open(EXTENSION_PAGE_PORT, PAGE);
    await page.call('connect', config, { version: 'test' });
    await page.call('signInWithPassword', DEMO);
    const stored = [...fake.area.items.values()].find((value) => (value as { refreshToken?: string }).refreshToken) as {
      refreshToken: string;
    };
    expect(stored.refreshToken.length).toBeGreaterThan(20);
    expect(await everythingStored()).not.toContain(stored.refreshToken);

    // The background stops and starts again: a new host on the same storage.session.
    const restarted = fakeExtension(fake.area);
    const again = startHost(restarted, { tokenStore: 'session' });
    const before = emulator().env.stats.snapshot().requests;
    const next = restarted.open(EXTENSION_PAGE_PORT, PAGE);
    await next.call('connect', again.config, { version: 'test' });
    expect(await next.call('read', { kind: 'session' })).toMatchObject({ status: 'signed-in' });
    const signIns = Object.keys(emulator().env.stats.snapshot().requests).filter(
      (route) => route.includes('sign-in') && before[route] === undefined,
    );
    expect(signIns).toEqual([]);
  });

  it('switching the extension to storage.session deletes the session it kept in IndexedDB, and back', async () => {
    const fake = fakeExtension();
    const { config } = startHost(fake);
    const page = fake.open(EXTENSION_PAGE_PORT, PAGE);
    await page.call('connect', config, { version: 'test' });
    await page.call('signInWithPassword', DEMO);
    expect(await everythingStored()).toMatch(/refreshToken/);
    const switched = fakeExtension(fake.area);
    const { host } = startHost(switched, { tokenStore: 'session' });
    await host.broker;
    expect(await everythingStored()).not.toMatch(/"status":"active"/);
  });
});
