import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReplyMessage } from '../../contract/wire.js';
import type { Broker } from '../../worker/broker.js';
import { exposeBrokerEntry } from '../../worker/rpc/brokerEntry.js';
import { resetIndexedDb, startTestBroker } from '../support/broker.js';
import { useEmulator } from '../support/emulator.js';
import { connectTab, type SimulatedTab } from '../support/tabs.js';
import { recordingFetch } from './network.js';

/**
 * A hostile page of the same origin can open its own port to the broker's SharedWorker and send
 * whatever it likes in Comlink's wire format. The broker must answer nothing but named calls.
 */
const emulator = useEmulator();
let broker: Broker | undefined;
const closers: Array<() => void> = [];

beforeEach(async () => {
  await resetIndexedDb();
});
afterEach(() => {
  for (const close of closers.splice(0)) close();
  broker?.close();
  broker = undefined;
});

/** Raw messages on a port, as a page with its own code (no Comlink) would send them. */
function rawPort(port: MessagePort) {
  let next = 0;
  const replies = new Map<string, (reply: ReplyMessage) => void>();
  port.addEventListener('message', (event: MessageEvent<ReplyMessage>) => replies.get(event.data.id)?.(event.data));
  port.start();
  closers.push(() => port.close());
  return {
    send(message: Record<string, unknown>, transfer: Transferable[] = []): Promise<ReplyMessage> {
      const id = `raw-${++next}`;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no reply to ${JSON.stringify(message)}`)), 2000);
        replies.set(id, (reply) => {
          clearTimeout(timer);
          resolve(reply);
        });
        port.postMessage({ ...message, id }, transfer);
      });
    },
  };
}

/** The typed refusal a strict broker answers with (the "throw" handler carrying our error). */
function refusal(reply: ReplyMessage): { code: string; argument?: string; message: string } | null {
  if (reply.type !== 'HANDLER' || reply.name !== 'throw') return null;
  const serialized = (reply.value as { authbroker?: { code: string; argument?: string; message: string } }).authbroker;
  return serialized ?? null;
}

async function signedInWorld() {
  const net = recordingFetch();
  const started = await startTestBroker(emulator(), { fetch: net.fetch });
  broker = started.broker;
  const tab = await connectTab(started.broker, started.locks);
  closers.push(() => tab.close());
  await tab.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
  await tab.subscribe('user', { kind: 'currentUser' });
  await tab.waitFor('user', (s) => s.status === 'success');
  return { broker: started.broker, locks: started.locks, tab, net };
}

/** Everything a refused message must leave as it was. */
function fingerprint(b: Broker, tab: SimulatedTab, sent: number) {
  const { session, subscriptions, cacheEntries, tokenRefreshes, tabsConnected } = b.status();
  return {
    session,
    subscriptions,
    cacheEntries,
    tokenRefreshes,
    tabsConnected,
    sent,
    deliveries: [...tab.deliveries.values()].flat().length,
  };
}

const HOSTILE: Array<[string, Record<string, unknown>]> = [
  ['GET of a nested property', { type: 'GET', path: ['constructor', 'name'] }],
  ['GET of a method itself', { type: 'GET', path: ['getAccessToken'] }],
  ['SET of a method', { type: 'SET', path: ['signInWithPassword'], value: { type: 'RAW', value: 'x' } }],
  ['SET on the prototype chain', { type: 'SET', path: ['__proto__', 'polluted'], value: { type: 'RAW', value: true } }],
  [
    'APPLY of Function through constructor.constructor',
    {
      type: 'APPLY',
      path: ['constructor', 'constructor'],
      argumentList: [{ type: 'RAW', value: 'return globalThis' }],
    },
  ],
  ['CONSTRUCT', { type: 'CONSTRUCT', path: ['constructor'], argumentList: [] }],
  ['ENDPOINT (a second port onto the same object)', { type: 'ENDPOINT' }],
  ['APPLY of an inherited name', { type: 'APPLY', path: ['toString'], argumentList: [] }],
  ['APPLY of __proto__', { type: 'APPLY', path: ['__proto__'], argumentList: [] }],
  ['APPLY of a nested path under a method', { type: 'APPLY', path: ['signOut', 'call'], argumentList: [] }],
  ['APPLY of an unknown name', { type: 'APPLY', path: ['dumpRefreshToken'], argumentList: [] }],
  ['APPLY with no path', { type: 'APPLY', argumentList: [] }],
  [
    'APPLY with a proxy argument (a callable into the caller)',
    { type: 'APPLY', path: ['status'], argumentList: [{ type: 'HANDLER', name: 'proxy', value: null }] },
  ],
  ['APPLY without an argument list', { type: 'APPLY', path: ['status'] }],
  ['an unknown message type', { type: 'EVAL', path: ['status'] }],
];

describe('the broker serves only its own methods', () => {
  it('on a tab’s API port: GET, SET, CONSTRUCT, ENDPOINT, nested and inherited paths and proxy arguments are refused with INVALID_ARGUMENT, and change nothing', async () => {
    const { broker: b, tab, net } = await signedInWorld();
    // A second connection made with raw messages: the hostile page's own API port.
    const { port1, port2 } = new MessageChannel();
    exposeBrokerEntry(async () => b, port2);
    const entry = rawPort(port1 as unknown as MessagePort);
    const listener = new MessageChannel();
    closers.push(() => listener.port1.close());
    const connected = await entry.send(
      {
        type: 'APPLY',
        path: ['connect'],
        argumentList: [
          { type: 'RAW', value: b.config },
          { type: 'RAW', value: { tabId: 'hostile', version: 'x' } },
          { type: 'RAW', value: listener.port2 },
        ],
      },
      [listener.port2 as unknown as Transferable],
    );
    expect(connected.type).toBe('RAW');
    const api = rawPort((connected as { value: MessagePort }).value);
    // The named call works, as for any tab.
    const status = await api.send({ type: 'APPLY', path: ['status'], argumentList: [] });
    expect(status).toMatchObject({ type: 'RAW', value: { session: { status: 'signed-in' } } });

    const before = fingerprint(b, tab, net.attempts.length);
    for (const [label, message] of HOSTILE) {
      const reply = await api.send(message);
      expect(refusal(reply), label).toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    expect(fingerprint(b, tab, net.attempts.length)).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // The connection still works, and the real tab never noticed.
    expect(await api.send({ type: 'APPLY', path: ['status'], argumentList: [] })).toMatchObject({ type: 'RAW' });
    expect(await tab.api.read({ kind: 'currentUser' })).toMatchObject({ primaryEmail: 'demo@authbroker.dev' });
  });

  it('on the worker’s entry port (what any page gets from new SharedWorker): only connect, and only with a port', async () => {
    const { broker: b, tab, net } = await signedInWorld();
    const { port1, port2 } = new MessageChannel();
    exposeBrokerEntry(async () => b, port2);
    const entry = rawPort(port1 as unknown as MessagePort);
    const before = fingerprint(b, tab, net.attempts.length);
    for (const [label, message] of [
      ...HOSTILE,
      ['APPLY of a broker method on the entry', { type: 'APPLY', path: ['getAccessToken'], argumentList: [] }] as const,
    ]) {
      const reply = await entry.send(message);
      expect(refusal(reply), label).toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    const noPort = await entry.send({
      type: 'APPLY',
      path: ['connect'],
      argumentList: [
        { type: 'RAW', value: b.config },
        { type: 'RAW', value: { tabId: 'x', version: 'x' } },
        { type: 'RAW', value: {} },
      ],
    });
    expect(refusal(noPort)).toMatchObject({ code: 'INVALID_ARGUMENT', argument: 'listenerPort' });
    expect(fingerprint(b, tab, net.attempts.length)).toEqual(before);
  });

  it('arguments are plain data: prototype keys never reach the broker, class instances are refused', async () => {
    const { broker: b, tab } = await signedInWorld();
    const refused = await tab.api
      .updateUser(JSON.parse('{"clientMetadata":{"x":{"__proto__":{"isAdmin":true}}}}') as never)
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'INVALID_ARGUMENT', argument: 'update.clientMetadata.x.__proto__' });
    const date = await tab.api.updateUser({ clientMetadata: new Date(0) as never }).catch((e: unknown) => e);
    expect(date).toMatchObject({ code: 'INVALID_ARGUMENT', argument: 'update.clientMetadata' });
    expect(b.status().session).toMatchObject({ status: 'signed-in' });
  });
});
