import {
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  generateKeyPair,
  jwtVerify,
  SignJWT,
  UnsecuredJWT,
} from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { endpoints } from '../../protocol/index.js';
import type { Clock } from '../../protocol/retry.js';
import type { Broker } from '../../worker/broker.js';
import type { SessionInfo } from '../../worker/index.js';
import { createIndexedDbStorage } from '../../worker/storage/indexedDb.js';
import type { SessionRecord } from '../../worker/storage/types.js';
import { signUp, type SignedUp } from '../support/authFlows.js';
import { compressedClock, demoSessionSlot, resetIndexedDb, startTestBroker } from '../support/broker.js';
import { transportFor, useEmulator } from '../support/emulator.js';
import { connectTab, type SimulatedTab } from '../support/tabs.js';
import { taggingFetch, type Attempt } from './calls.js';

/**
 * The broker with a tampered token in its store (written into fake IndexedDB before it starts):
 * access tokens the service refuses (UNPARSABLE, EXPIRED, INVALID_PROJECT_FOR_ACCESS_TOKEN) are
 * renewed once and the call succeeds; a refresh token the service does not know ends the session
 * with reason `session-revoked`.
 */
const emulator = useEmulator();
const ELEVEN_MINUTES = 11 * 60 * 1000;

let broker: Broker | undefined;
let tab: SimulatedTab | undefined;
beforeEach(async () => {
  await resetIndexedDb();
  emulator().env.stats.reset();
});
afterEach(() => {
  tab?.close();
  broker?.close();
  tab = undefined;
  broker = undefined;
});

/** Writes the session record a broker will find at start, through the broker's own storage code. */
async function seed(user: SignedUp, tokens: { accessToken: string | null; refreshToken?: string }): Promise<string> {
  const storage = await createIndexedDbStorage();
  const sessionKey = crypto.randomUUID();
  const record: SessionRecord = {
    slot: demoSessionSlot(emulator()),
    status: 'active',
    sessionKey,
    refreshToken: tokens.refreshToken ?? user.refresh_token,
    accessToken: tokens.accessToken,
    userId: user.user_id,
    updatedAtMillis: emulator().env.clock.now(),
  };
  await storage.saveSession(record);
  storage.close();
  return sessionKey;
}

async function start(clock?: Clock): Promise<{ attempts: Attempt[] }> {
  const net = taggingFetch();
  const started = await startTestBroker(emulator(), { fetch: net.fetch, ...(clock === undefined ? {} : { clock }) });
  broker = started.broker;
  tab = await connectTab(started.broker, started.locks);
  await tab.subscribe('session', { kind: 'session' });
  return net;
}

const trail = (attempts: Attempt[]) =>
  attempts.map((a) => `${a.method} ${a.path.split('?')[0]} ${a.knownError ?? a.outcome}`);

/** The call went through on a fresh, genuine token after exactly one renewal. */
async function expectRenewedOnce(
  attempts: Attempt[],
  refused: string | null,
  stale: string,
  user: SignedUp,
): Promise<void> {
  const em = emulator();
  expect((await tab!.api.read({ kind: 'currentUser' }))?.id).toBe(user.user_id);
  expect(trail(attempts)).toEqual([
    ...(refused === null ? [] : [`GET /users/me ${refused}`]),
    'POST /auth/oauth/token 200',
    'GET /users/me 200',
  ]);
  expect(em.env.stats.snapshot().token_refreshes).toBe(1);
  expect(broker!.status().tokenRefreshes).toBe(1);
  const fresh = (await tab!.api.getAccessToken())!;
  expect(fresh).not.toBe(stale);
  const jwks = createRemoteJWKSet(new URL(`${em.url}/api/v1/projects/${em.projects.demo.id}/.well-known/jwks.json`));
  const { payload } = await jwtVerify(fresh, jwks, {
    audience: em.projects.demo.id,
    algorithms: ['ES256'],
    currentDate: new Date(decodeJwt(fresh).iat! * 1000),
  });
  expect(payload.sub).toBe(user.user_id);
  expect(broker!.status().session).toEqual({ status: 'signed-in', userId: user.user_id });
  expect(tab!.deliveries.get('session')!.every((s) => (s.data as SessionInfo).status === 'signed-in')).toBe(true);
}

describe('a tampered access token in the store', () => {
  it('alg none (the same claims, unsigned): UNPARSABLE_ACCESS_TOKEN, renewed once, the call succeeds', async () => {
    const user = await signUp(emulator());
    const unsigned = new UnsecuredJWT({ ...decodeJwt(user.access_token) }).encode();
    expect(decodeProtectedHeader(unsigned).alg).toBe('none');
    await seed(user, { accessToken: unsigned });
    const { attempts } = await start();
    await expectRenewedOnce(attempts, 'UNPARSABLE_ACCESS_TOKEN', unsigned, user);
  });

  it('signed with another key under the project’s kid: UNPARSABLE_ACCESS_TOKEN, renewed once', async () => {
    const user = await signUp(emulator());
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT({ ...decodeJwt(user.access_token) })
      .setProtectedHeader({ alg: 'ES256', kid: decodeProtectedHeader(user.access_token).kid! })
      .sign(privateKey);
    await seed(user, { accessToken: forged });
    const { attempts } = await start();
    await expectRenewedOnce(attempts, 'UNPARSABLE_ACCESS_TOKEN', forged, user);
  });

  it('another project’s token (the internal project’s, so another user’s): never sent, renewed once', async () => {
    const em = emulator();
    const user = await signUp(em);
    const other = await endpoints.signInWithPassword(transportFor(em, 'client', { project: 'internal' }), {
      email: 'admin@authbroker.dev',
      password: 'admin-password',
    });
    await seed(user, { accessToken: other.access_token });
    const { attempts } = await start();
    // Its `sub` is not the record's user: the broker knows it is not this session's without asking the service.
    await expectRenewedOnce(attempts, null, other.access_token, user);
  });

  it('expired, and the broker’s clock knows it: renewed before any call is sent, once', async () => {
    const em = emulator();
    const user = await signUp(em);
    await seed(user, { accessToken: user.access_token });
    em.env.clock.advance(ELEVEN_MINUTES);
    const { attempts } = await start();
    await expectRenewedOnce(attempts, null, user.access_token, user);
  });

  it('expired, but the broker’s clock is behind the service’s: ACCESS_TOKEN_EXPIRED, renewed once, the call succeeds', async () => {
    const em = emulator();
    const user = await signUp(em);
    await seed(user, { accessToken: user.access_token });
    em.env.clock.advance(ELEVEN_MINUTES);
    // System time: the token's exp still lies ahead of it, so the broker sends it.
    expect(decodeJwt(user.access_token).exp! * 1000).toBeGreaterThan(compressedClock.now() + 60_000);
    const { attempts } = await start(compressedClock);
    await expectRenewedOnce(attempts, 'ACCESS_TOKEN_EXPIRED', user.access_token, user);
  });
});

describe('a tampered refresh token in the store', () => {
  const forgedRefresh = '0123456789abcdefghjkmnpqrstvwxyz0123456789abc';

  async function expectRevoked(sessionKey: string): Promise<void> {
    const session = await tab!.waitFor('session', (s) => (s.data as SessionInfo).status === 'signed-out');
    expect(session.data).toMatchObject({
      status: 'signed-out',
      lastEnd: { reason: 'session-revoked', code: 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED' },
    });
    expect(broker!.status().session).toMatchObject({ status: 'signed-out', lastEnd: { reason: 'session-revoked' } });
    expect(await tab!.api.getAccessToken()).toBeNull();
    // The end is stored as a tombstone, so a broker started later reports the same reason.
    const storage = await createIndexedDbStorage();
    const stored = await storage.loadSession(demoSessionSlot(emulator()));
    storage.close();
    expect(stored).toMatchObject({
      status: 'ended',
      sessionKey,
      end: { reason: 'session-revoked', code: 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED' },
    });
    expect(emulator().env.stats.snapshot().token_refreshes).toBe(0);
  }

  it('with no access token: the refresh is refused (REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED) and the session ends as session-revoked', async () => {
    const user = await signUp(emulator());
    const sessionKey = await seed(user, { accessToken: null, refreshToken: forgedRefresh });
    const { attempts } = await start();
    expect(await tab!.api.getAccessToken()).toBeNull();
    expect(trail(attempts)).toEqual(['POST /auth/oauth/token REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED']);
    await expectRevoked(sessionKey);
  });

  it('next to a refused access token: one renewal attempt, the session ends as session-revoked, the call goes on signed out', async () => {
    const user = await signUp(emulator());
    const unsigned = new UnsecuredJWT({ ...decodeJwt(user.access_token) }).encode();
    const sessionKey = await seed(user, { accessToken: unsigned, refreshToken: forgedRefresh });
    const { attempts } = await start();
    // As §9.1.1 says: the call continues without user tokens, and a signed-out user is null.
    expect(await tab!.api.read({ kind: 'currentUser' })).toBeNull();
    expect(trail(attempts).slice(0, 2)).toEqual([
      'GET /users/me UNPARSABLE_ACCESS_TOKEN',
      'POST /auth/oauth/token REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED',
    ]);
    expect(trail(attempts).filter((t) => t.startsWith('POST /auth/oauth/token'))).toHaveLength(1);
    await expectRevoked(sessionKey);
  });
});
