import * as Comlink from 'comlink';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClientError, HttpStatusError, InvalidArgumentError, NetworkError } from '../../protocol/errors/errors.js';
import { isKnownError, KnownError } from '../../protocol/errors/knownError.js';
import type { Broker } from '../../worker/broker.js';
import { createBroker } from '../../worker/index.js';
import type { BrokerEntry, ConnectivitySnapshot } from '../../worker/index.js';
import { checkPlainData, parseArguments } from '../../contract/arguments.js';
import { installErrorTransfer } from '../../client/connect/rpc.js';
import { tabErrors } from '../../client/connect/tabErrors.js';
import { exposeBrokerEntry } from '../../worker/rpc/brokerEntry.js';
import { resetIndexedDb, startTestBroker } from '../support/broker.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';
import { connectTab, type SimulatedTab } from '../support/tabs.js';
import { recordingFetch, type RecordingFetch } from './network.js';

const emulator = useEmulator();
const APP = 'http://localhost:5173';
const UUID = '6f1c1a52-3c1e-4b8e-9a3f-0c9d1f3b2a11';

let brokers: Broker[] = [];
let closers: Array<() => void> = [];

beforeEach(async () => {
  await resetIndexedDb();
});
afterEach(() => {
  for (const close of closers) close();
  closers = [];
  for (const broker of brokers) broker.close();
  brokers = [];
});

async function world(fetchFn?: typeof fetch) {
  const net = recordingFetch();
  const started = await startTestBroker(emulator(), { fetch: fetchFn ?? net.fetch });
  brokers.push(started.broker);
  const tab = await connectTab(started.broker, started.locks);
  closers.push(() => tab.close());
  return { broker: started.broker, locks: started.locks, tab, net };
}

function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a refusal, got ${JSON.stringify(value)?.slice(0, 200)}`);
    },
    (error: unknown) => error,
  );
}

/** What must not move when a call is refused: the broker's state and the service's request count. */
function fingerprint(broker: Broker, net: RecordingFetch) {
  const { session, subscriptions, cacheEntries, tokenRefreshes, connectivity, warnings } = broker.status();
  return {
    session,
    subscriptions,
    cacheEntries,
    tokenRefreshes,
    connectivity: connectivity.state,
    lastError: connectivity.lastError,
    warnings,
    sent: net.attempts.length,
    served: emulator().env.stats.snapshot().requests_total,
  };
}

async function expectRefused(
  broker: Broker,
  net: RecordingFetch,
  cases: Array<[unknown, (api: SimulatedTab['api']) => Promise<unknown>]>,
  api: SimulatedTab['api'],
) {
  const before = fingerprint(broker, net);
  for (const [argument, call] of cases) {
    const error = await refusal(call(api));
    const label = String(argument);
    expect(error, label).toBeInstanceOf(InvalidArgumentError);
    expect(error, label).toMatchObject({ name: 'InvalidArgumentError', code: 'INVALID_ARGUMENT', argument });
    expect((error as Error).message.length, label).toBeGreaterThan(10);
  }
  expect(fingerprint(broker, net)).toEqual(before);
}

const deep = (levels: number): unknown => (levels === 0 ? 'bottom' : { next: deep(levels - 1) });

describe('bad input is refused at the boundary: InvalidArgumentError across Comlink, nothing sent, nothing changed', () => {
  it('wrong types, unknown fields and bad UUIDs', async () => {
    const { broker, tab, net } = await world();
    await tab.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    await tab.subscribe('user', { kind: 'currentUser' });
    await tab.waitFor('user', (s) => s.status === 'success');
    await expectRefused(
      broker,
      net,
      [
        ['input.email', (api) => api.signInWithPassword({ email: 42, password: 'x' } as never)],
        ['input', (api) => api.signInWithPassword('demo@authbroker.dev' as never)],
        [
          'input.password',
          (api) =>
            api.signUpWithPassword({
              email: 'x@example.com',
              password: 12345678,
              verificationCallbackUrl: `${APP}/x`,
            } as never),
        ],
        [
          'input.verificationCallbackUrl',
          (api) =>
            api.signUpWithPassword({
              email: 'x@example.com',
              password: 'long-enough',
              verificationCallbackUrl: 'not a url',
            }),
        ],
        ['update.displayName', (api) => api.updateUser({ displayName: 5 } as never)],
        ['update.otpAuthEnabled', (api) => api.updateUser({ otpAuthEnabled: 'yes' } as never)],
        ['update.clientMetadata', (api) => api.updateUser({ clientMetadata: 10n } as never)],
        ['input.displayName', (api) => api.createTeam({ displayName: ['Team'] } as never)],
        ['state.online', (api) => api.reportBrowserState({ online: 'no' } as never)],
        [
          'query.recursive',
          (api) => api.subscribe('p', { kind: 'permissions', teamId: UUID, recursive: 'yes' } as never),
        ],
        ['subscriptionId', (api) => api.subscribe(7 as never, { kind: 'teams' })],
        ['query', (api) => api.read(null as never)],
        [
          'input.expiresAtMillis',
          (api) =>
            api.adminCreateApiKey({
              description: 'k',
              expiresAtMillis: 'tomorrow',
              hasPublishableClientKey: true,
              hasSecretServerKey: false,
              hasSuperSecretAdminKey: false,
            } as never),
        ],
        // Unknown fields: a typo is a bug worth hearing about.
        [
          'input.remember',
          (api) =>
            api.signInWithPassword({
              email: 'demo@authbroker.dev',
              password: 'demo-password',
              remember: true,
            } as never),
        ],
        ['update.primaryEmail', (api) => api.updateUser({ primaryEmail: 'other@example.com' } as never)],
        ['update.passkeyAuthEnabled', (api) => api.updateUser({ passkeyAuthEnabled: true } as never)],
        ['query.extra', (api) => api.subscribe('t', { kind: 'teams', extra: 1 } as never)],
        ['query.kind', (api) => api.read({ kind: 'users' } as never)],
        [
          'input.scope',
          (api) => api.startOAuth({ providerId: 'github', redirectUri: `${APP}/cb`, scope: 'x' } as never),
        ],
        // Bad UUIDs never become a request path.
        ['teamId', (api) => api.updateTeam('not-a-uuid', { displayName: 'x' })],
        ['teamId', (api) => api.deleteTeam(`${UUID}/../../users/me`)],
        ['sessionId', (api) => api.revokeSession('42')],
        ['channelId', (api) => api.deleteContactChannel('')],
        ['query.teamId', (api) => api.read({ kind: 'team', teamId: 'x' })],
        ['update.selectedTeamId', (api) => api.updateUser({ selectedTeamId: 'team-1' })],
      ],
      tab.api,
    );
    expect((await tab.api.read({ kind: 'currentUser' }))!.primaryEmail).toBe('demo@authbroker.dev');
  });

  it('__proto__ and constructor keys, at any depth, and query kinds named after Object members', async () => {
    const { broker, tab, net } = await world();
    await tab.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    const proto = (json: string) => JSON.parse(json) as never;
    await expectRefused(
      broker,
      net,
      [
        [
          'input.__proto__',
          (api) =>
            api.signInWithPassword(
              proto('{"email":"demo@authbroker.dev","password":"demo-password","__proto__":{"admin":true}}'),
            ),
        ],
        [
          'input.constructor',
          (api) =>
            api.signInWithPassword({
              email: 'demo@authbroker.dev',
              password: 'demo-password',
              constructor: { name: 'x' },
            } as never),
        ],
        [
          'update.clientMetadata.__proto__',
          (api) => api.updateUser(proto('{"clientMetadata":{"__proto__":{"polluted":true}}}')),
        ],
        [
          'update.clientMetadata.a[0].__proto__',
          (api) => api.updateUser(proto('{"clientMetadata":{"a":[{"__proto__":{}}]}}')),
        ],
        ['update.__proto__', (api) => api.updateTeam(UUID, proto('{"__proto__":{"displayName":"x"}}'))],
        ['update.__proto__', (api) => api.adminUpdateProject(proto('{"__proto__":{"config":{}}}'))],
        ['query.__proto__', (api) => api.read(proto('{"kind":"teams","__proto__":{"teamId":"x"}}'))],
        ['query.kind', (api) => api.read({ kind: '__proto__' } as never)],
        ['query.kind', (api) => api.subscribe('c', { kind: 'constructor' } as never)],
        ['query.kind', (api) => api.read({ kind: 'toString' } as never)],
        ['update.constructor', (api) => api.updateTeam(UUID, { constructor: 'x' } as never)],
      ],
      tab.api,
    );
    // Nothing leaked into shared prototypes either.
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('oversized strings, ids and absurd nesting', async () => {
    const { broker, tab, net } = await world();
    await tab.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    const huge = 'x'.repeat(2 * 1024 * 1024);
    await expectRefused(
      broker,
      net,
      [
        ['input.email', (api) => api.signInWithPassword({ email: `${huge}@example.com`, password: 'demo-password' })],
        ['update.displayName', (api) => api.updateUser({ displayName: huge })],
        ['update.clientMetadata.notes', (api) => api.updateUser({ clientMetadata: { notes: huge } })],
        ['code', (api) => api.verifyEmail(huge)],
        ['input.providerId', (api) => api.startOAuth({ providerId: 'p'.repeat(201), redirectUri: `${APP}/cb` })],
        ['subscriptionId', (api) => api.subscribe('s'.repeat(201), { kind: 'teams' })],
        [
          expect.stringMatching(/^update\.clientMetadata(\.next)+$/),
          (api) => api.updateUser({ clientMetadata: deep(70) as never }),
        ],
      ],
      tab.api,
    );
    // A tab id longer than 200 characters is refused when the tab connects.
    const hello = await refusal(
      Promise.resolve().then(() =>
        broker.connect({ tabId: 't'.repeat(201), version: 'x' }, { deliver: () => undefined }),
      ),
    );
    expect(hello).toMatchObject({ code: 'INVALID_ARGUMENT', argument: 'hello.tabId' });
    expect((await tab.api.status()).tabsConnected).toBe(1);
    // The limits leave room for what the service does accept: a profile image of a million characters, nested metadata.
    const roomy = [{ profileImageUrl: `data:image/png;base64,${'A'.repeat(999_976)}`, clientMetadata: deep(40) }];
    expect(() => checkPlainData('updateUser', roomy)).not.toThrow();
    expect(() => parseArguments('updateUser', roomy)).not.toThrow();
  });
});

describe('the broker config', () => {
  const base = () => ({
    baseUrl: emulator().url,
    projectId: emulator().projects.demo.id,
    publishableClientKey: emulator().projects.demo.publishableClientKey,
  });

  it('refuses secret keys with an explanation, and token margins of a minute or more, at construction', async () => {
    for (const key of ['secretServerKey', 'superSecretAdminKey']) {
      const error = await refusal(
        createBroker({ ...base(), [key]: 'ssk_do_not_ship_me' }, { mode: 'shared-worker', locks: null }),
      );
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect(error).toMatchObject({ argument: `config.${key}` });
      expect((error as Error).message).toMatch(/Secret keys belong on your server/);
    }
    for (const margin of [60_000, 120_000, -1, Number.NaN]) {
      const error = await refusal(
        createBroker({ ...base(), tokenMarginMillis: margin }, { mode: 'shared-worker', locks: null }),
      );
      expect(error, String(margin)).toMatchObject({
        name: 'InvalidArgumentError',
        argument: 'config.tokenMarginMillis',
      });
    }
    const ok = await createBroker({ ...base(), tokenMarginMillis: 59_999 }, { mode: 'shared-worker', locks: null });
    brokers.push(ok);
    expect(ok.config.tokenMarginMillis).toBe(59_999);
    expect(ok.config.refetchOnReturn).toBe(true);
    const notBoolean = await refusal(
      createBroker({ ...base(), refetchOnReturn: 1 }, { mode: 'shared-worker', locks: null }),
    );
    expect(notBoolean).toMatchObject({ name: 'InvalidArgumentError', argument: 'config.refetchOnReturn' });
    expect(ok.config.tokenStore).toBe('indexeddb');
    const unknownStore = await refusal(
      createBroker({ ...base(), tokenStore: 'localStorage' }, { mode: 'shared-worker', locks: null }),
    );
    expect(unknownStore).toMatchObject({ name: 'InvalidArgumentError', argument: 'config.tokenStore' });
  });

  it('a tab sending a config with a secret key, or another project, is refused over Comlink', async () => {
    const { broker } = await world();
    installErrorTransfer(tabErrors);
    const { port1, port2 } = new MessageChannel();
    exposeBrokerEntry(async () => broker, port2);
    const entry = Comlink.wrap<BrokerEntry>(port1);
    closers.push(() => port1.close());
    const listener = () => {
      const channel = new MessageChannel();
      closers.push(() => channel.port1.close());
      return Comlink.transfer(channel.port2, [channel.port2]);
    };
    expect(
      await refusal(entry.connect(broker.config, { tabId: 'no-port', version: 'x' }, {} as MessagePort)),
    ).toMatchObject({ name: 'InvalidArgumentError', argument: 'listenerPort' });
    const secret = await refusal(
      entry.connect({ ...broker.config, secretServerKey: 'ssk_x' }, { tabId: 'evil', version: 'x' }, listener()),
    );
    expect(secret).toBeInstanceOf(InvalidArgumentError);
    expect(secret).toMatchObject({ argument: 'config.secretServerKey' });
    const other = await refusal(
      entry.connect(
        { ...broker.config, projectId: '00000000-0000-4000-8000-00000000000f' },
        { tabId: 'lost', version: 'x' },
        listener(),
      ),
    );
    expect(other).toBeInstanceOf(InvalidArgumentError);
    expect((other as Error).message).toContain('00000000-0000-4000-8000-00000000000f');
    expect(broker.status().tabsConnected).toBe(1);
  });
});

describe('errors keep their class, code, details and family across Comlink', () => {
  it('known errors raised by the broker and by the service', async () => {
    const { tab } = await world();
    const short = await refusal(
      tab.api.signUpWithPassword({
        email: uniqueEmail('short'),
        password: 'short',
        verificationCallbackUrl: `${APP}/x`,
      }),
    );
    expect(short).toBeInstanceOf(KnownError);
    expect(isKnownError(short, 'PASSWORD_REQUIREMENTS_NOT_MET')).toBe(true);
    expect(short).toMatchObject({
      code: 'PASSWORD_TOO_SHORT',
      status: 400,
      details: { min_length: 8 },
      message: 'Password too short. Minimum length is 8.',
    });

    const taken = await refusal(
      tab.api.signUpWithPassword({
        email: 'demo@authbroker.dev',
        password: 'long-enough-password',
        verificationCallbackUrl: `${APP}/x`,
      }),
    );
    expect(isKnownError(taken, 'USER_EMAIL_ALREADY_EXISTS')).toBe(true);
    expect(taken).toMatchObject({ status: 409 });

    const code = await refusal(tab.api.checkPasswordResetCode('0123456789abcdefghjkmnpqrstvwxyz0123456789abc'));
    expect(isKnownError(code, 'VERIFICATION_ERROR')).toBe(true);
    expect(code).toMatchObject({ code: 'VERIFICATION_CODE_NOT_FOUND', status: 404 });

    const user = await tab.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    const stranger = await refusal(tab.api.read({ kind: 'team', teamId: UUID }));
    expect(isKnownError(stranger, 'TEAM_MEMBERSHIP_NOT_FOUND')).toBe(true);
    expect((stranger as KnownError).details).toEqual({
      team_id: UUID,
      user_id: user.status === 'signed-in' ? user.userId : '',
    });

    const plain = await refusal(tab.api.revokeSession(UUID));
    expect(plain).toBeInstanceOf(HttpStatusError);
    expect(plain).toMatchObject({ status: 404, body: 'Session not found.' });

    const callback = await refusal(tab.api.completeOAuth({ callbackUrl: `${APP}/handler/oauth-callback?state=only` }));
    expect(callback).toBeInstanceOf(ClientError);
    expect(callback).toMatchObject({ code: 'OAUTH_CALLBACK_INVALID' });
  });

  it('NetworkError keeps its code, attempts and diagnostics', async () => {
    // Only the profile update fails to get through; the service itself answers.
    let networkDown = false;
    const fetchFn: typeof fetch = (input, init) =>
      networkDown || init?.method === 'PATCH' || (init?.method === 'POST' && String(input).includes('/teams'))
        ? Promise.reject(new TypeError('connection reset'))
        : fetch(input, init);
    const { tab } = await world(fetchFn);
    await tab.api.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    // A POST is tried once (it may have been applied); its diagnostics find the service answering.
    const unreachable = await refusal(tab.api.createTeam({ displayName: 'Unsent' }));
    expect(unreachable).toBeInstanceOf(NetworkError);
    expect(unreachable).toMatchObject({ code: 'NETWORK_UNREACHABLE', attempts: 1 });
    const diagnostics = (unreachable as NetworkError).diagnostics!;
    expect(diagnostics.health).toMatchObject({
      url: `${emulator().url}/health`,
      reachable: true,
      status: 200,
      error: null,
    });
    expect(diagnostics.apiRoot.reachable).toBe(true);
    expect(typeof diagnostics.checkedAtMillis).toBe('number');
    expect((unreachable as Error).message).toContain('connection reset');

    // The network goes, and the browser says so: the broker's check confirms it.
    await tab.subscribe('c', { kind: 'connectivity' });
    networkDown = true;
    await tab.api.reportBrowserState({ online: false });
    await tab.waitFor(
      'c',
      (s) =>
        (s.data as ConnectivitySnapshot).state === 'offline' &&
        (s.data as ConnectivitySnapshot).diagnostics?.navigatorOnline === false,
    );
    const offline = await refusal(tab.api.updateUser({ displayName: 'Offline' }));
    expect(offline).toBeInstanceOf(NetworkError);
    expect(offline).toMatchObject({
      code: 'NETWORK_OFFLINE',
      attempts: 0,
      diagnostics: { navigatorOnline: false, health: { reachable: false } },
    });
  });
});
