import { afterEach, describe, expect, it } from 'vitest';
import { createExtensionClient } from '../../client/extension/index.js';
import { decodeFromJson, encodeForJson } from '../../contract/jsonWire.js';
import type { CallMessage } from '../../contract/wire.js';
import { ClientError } from '../../protocol/errors/errors.js';
import { serializeError } from '../../protocol/errors/serialize.js';

/**
 * A call the broker never answered because its host went away is asked again of the next broker
 * when it changes nothing, once, and never after the app closed the client. Here an extension page
 * (jsdom, its location and `chrome.runtime` faked) and a scripted background: each port the page
 * opens is a new start of the background, which answers `connect` and then does what the test says.
 * The same wrapper serves the SharedWorker and service-worker hosts (test/e2e/tabs.test.ts, 2b).
 */
const EXTENSION_ID = 'nkfhlofegonjdoefllidhjigbpeabaen';
const ORIGIN = `chrome-extension://${EXTENSION_ID}`;
const options = {
  baseUrl: 'http://127.0.0.1:9',
  projectId: '27581ab5-090d-4de0-a603-9893113cd548',
  publishableClientKey: 'pck_xv3w9hr05qc74yhz1es3ne3shtfd2qf25wc752sz007bb',
};
const g = globalThis as { chrome?: unknown };
const pageLocation = Object.getOwnPropertyDescriptor(globalThis, 'location')!;

afterEach(() => {
  Object.defineProperty(globalThis, 'location', pageLocation);
  delete g.chrome;
});

/**
 * What one start of the background does with a call: answer it, fail it, stop before answering, or keep it unanswered.
 */
type Behaviour = (method: string, args: unknown[]) => { answer: unknown } | { fail: Error } | 'stop' | 'hold';

function event<L extends (...args: never[]) => void>() {
  const listeners = new Set<L>();
  return {
    listeners,
    addListener: (l: L) => void listeners.add(l),
    removeListener: (l: L) => void listeners.delete(l),
  };
}

/**
 * An extension page whose background starts anew for each port, as `starts` scripts it (the last one for any later
 * start).
 */
function extensionPage(starts: Behaviour[]) {
  const calls: Array<{ start: number; method: string; args: unknown[] }> = [];
  let opened = 0;
  const page = {
    calls,
    opened: () => opened,
    /** The methods the background says it serves. */
    methods: ['read', 'refetch', 'signOut', 'status', 'goodbye', 'subscribe', 'unsubscribe'],
  };
  Object.defineProperty(globalThis, 'location', {
    configurable: true,
    value: { href: `${ORIGIN}/popup.html`, origin: ORIGIN, protocol: 'chrome-extension:', pathname: '/popup.html' },
  });
  g.chrome = {
    runtime: {
      id: EXTENSION_ID,
      getURL: (path: string) => `${ORIGIN}/${path}`,
      getManifest: () => ({ manifest_version: 3, background: { service_worker: 'background.js' } }),
      onConnect: event(),
      connect: () => {
        const start = opened++;
        const behave = starts[Math.min(start, starts.length - 1)]!;
        const onMessage = event<(message: unknown) => void>();
        const onDisconnect = event<() => void>();
        let connected = true;
        const stop = () => {
          connected = false;
          onDisconnect.listeners.forEach((listener) => listener());
        };
        const reply = (message: unknown) =>
          queueMicrotask(
            () =>
              connected &&
              onMessage.listeners.forEach((listener) => listener(JSON.parse(JSON.stringify(encodeForJson(message))))),
          );
        return {
          name: 'authbroker',
          onMessage,
          onDisconnect,
          disconnect: () => (connected = false),
          postMessage(raw: unknown) {
            if (!connected) throw new Error('Attempting to use a disconnected port object');
            const call = decodeFromJson(JSON.parse(JSON.stringify(raw))) as CallMessage & { type: 'APPLY' };
            const method = call.path[0];
            const args = call.argumentList.map((wire) => (wire as { value: unknown }).value);
            if (method === 'connect')
              return reply({
                id: call.id,
                type: 'RAW',
                value: { methods: page.methods },
              });
            calls.push({ start, method, args });
            const outcome = behave(method, args);
            // Stopped by the browser with the call received and unanswered.
            if (outcome === 'stop') return queueMicrotask(stop);
            if (outcome === 'hold') return;
            if ('fail' in outcome)
              return reply({
                id: call.id,
                type: 'HANDLER',
                name: 'throw',
                value: {
                  isError: true,
                  value: { message: outcome.fail.message },
                  authbroker: serializeError(outcome.fail),
                },
              });
            reply({ id: call.id, type: 'RAW', value: outcome.answer });
          },
        };
      },
    },
  };
  return page;
}

const answers =
  (value: unknown): Behaviour =>
  () => ({ answer: value });
const stops: Behaviour = () => 'stop';

describe('a call the broker never answered because its host stopped', () => {
  it('a read is asked again of the next start of the background, once, and resolves with its answer', async () => {
    const page = extensionPage([stops, answers({ status: 'signed-in', userId: 'u1' })]);
    const client = createExtensionClient(options);
    await expect(client.read({ kind: 'session' })).resolves.toEqual({ status: 'signed-in', userId: 'u1' });
    expect(page.calls.filter((call) => call.method === 'read')).toEqual([
      { start: 0, method: 'read', args: [{ kind: 'session' }] },
      { start: 1, method: 'read', args: [{ kind: 'session' }] },
    ]);
    client.close();
  });

  it('a refetch and the status likewise', async () => {
    const page = extensionPage([
      stops,
      (method) => (method === 'refetch' ? { answer: undefined } : 'stop'),
      answers({ mode: 'extension' }),
    ]);
    const client = createExtensionClient(options);
    await expect(client.refetch!({ kind: 'currentUser' })).resolves.toBeUndefined();
    await expect(client.status()).resolves.toEqual({ mode: 'extension' });
    expect(page.calls.map((call) => `${call.start}:${call.method}`)).toEqual([
      '0:refetch',
      '1:refetch',
      '1:status',
      '2:status',
    ]);
    client.close();
  });

  it('a call that changes something is not asked again: it fails with BROKER_UNAVAILABLE, and the next background never sees it', async () => {
    const page = extensionPage([stops, answers(undefined)]);
    const client = createExtensionClient(options);
    await expect(client.signOut()).rejects.toMatchObject({
      code: 'BROKER_UNAVAILABLE',
      message: expect.stringMatching(/stopped before it answered/),
    });
    // The client has connected again by itself (what is on screen subscribes there), and the sign-out went to the first
    // start only.
    await expect(client.read({ kind: 'session' })).resolves.toBeUndefined();
    expect(page.calls.map((call) => `${call.start}:${call.method}`)).toEqual(['0:signOut', '1:read']);
    client.close();
  });

  it.each([
    'checkPasswordResetCode',
    'checkEmailVerificationCode',
    'checkTeamInvitationCode',
    'getTeamInvitationDetails',
  ])("a lost %s is not asked again: each check uses one of the code's attempts at the service", async (method) => {
    const page = extensionPage([stops, answers(undefined)]);
    const methods = ['read', 'refetch', 'signOut', 'status', 'goodbye', 'subscribe', 'unsubscribe', method];
    page.methods = methods;
    const client = createExtensionClient(options);
    const check = (client as unknown as Record<string, (code: string) => Promise<unknown>>)[method]!;
    await expect(check.call(client, 'a-code')).rejects.toMatchObject({
      code: 'BROKER_UNAVAILABLE',
      message: expect.stringMatching(/stopped before it answered/),
    });
    await expect(client.read({ kind: 'session' })).resolves.toBeUndefined();
    expect(page.calls.map((call) => `${call.start}:${call.method}`)).toEqual([`0:${method}`, '1:read']);
    client.close();
  });

  it('asked again at most once: when the next background stops too, the read fails, and a third never sees it', async () => {
    const page = extensionPage([stops, stops, answers('third')]);
    const client = createExtensionClient(options);
    await expect(client.read({ kind: 'session' })).rejects.toMatchObject({ code: 'BROKER_UNAVAILABLE' });
    expect(page.calls.map((call) => `${call.start}:${call.method}`)).toEqual(['0:read', '1:read']);
    // The client carries on: a new read goes to the third start.
    await expect(client.read({ kind: 'session' })).resolves.toBe('third');
    client.close();
  });

  it("the broker's own BROKER_UNAVAILABLE is its answer, not a lost call: not asked again", async () => {
    const page = extensionPage([() => ({ fail: new ClientError('BROKER_UNAVAILABLE', 'the broker says no') })]);
    const client = createExtensionClient(options);
    await expect(client.read({ kind: 'session' })).rejects.toMatchObject({
      code: 'BROKER_UNAVAILABLE',
      message: 'the broker says no',
    });
    expect(page.calls).toHaveLength(1);
    expect(page.opened()).toBe(1);
    client.close();
  });

  it('a read in flight when the app closes the client fails, and is not asked again: no new port is opened for it', async () => {
    const page = extensionPage([() => 'hold']);
    const client = createExtensionClient(options);
    await client.connect();
    const pending = client.read({ kind: 'session' }).then(
      () => 'answered',
      (error: { code?: string }) => error.code,
    );
    await new Promise((resolve) => setTimeout(resolve, 0));
    client.close();
    expect(await pending).toBe('BROKER_UNAVAILABLE');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(page.opened()).toBe(1);
    // Only the goodbye a closing client sends follows the read.
    expect(page.calls.map((call) => call.method)).toEqual(['read', 'goodbye']);
  });
});
