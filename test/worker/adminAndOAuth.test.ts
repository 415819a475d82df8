import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClientError } from '../../protocol/errors/errors.js';
import { isKnownError } from '../../protocol/errors/knownError.js';
import type { Broker } from '../../worker/broker.js';
import type { AdminProjectModel, ApiKey, Project, SessionInfo, User } from '../../worker/index.js';
import { resetIndexedDb, startTestBroker, tokenRequests } from '../support/broker.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';
import { callback, consent, type StartedFlow } from '../support/oauth.js';
import { connectTab, type SimulatedTab } from '../support/tabs.js';
import { recordingFetch, settle, type RecordingFetch } from './network.js';

const emulator = useEmulator();
const TEN_MINUTES = 10 * 60 * 1000;
const APP = 'http://localhost:5173';
const REDIRECT = `${APP}/handler/oauth-callback`;

let broker: Broker | undefined;
let tabs: SimulatedTab[] = [];

beforeEach(async () => {
  await resetIndexedDb();
  emulator().env.stats.reset();
});
afterEach(() => {
  for (const tab of tabs) tab.close();
  tabs = [];
  broker?.close();
  broker = undefined;
});

async function start(tabCount: number): Promise<{ net: RecordingFetch; tabs: SimulatedTab[] }> {
  const net = recordingFetch();
  const started = await startTestBroker(emulator(), { fetch: net.fetch });
  broker = started.broker;
  tabs = await Promise.all(Array.from({ length: tabCount }, () => connectTab(started.broker, started.locks)));
  return { net, tabs };
}

async function adminSignIn(tab: SimulatedTab): Promise<string> {
  const result = await tab.api.adminSignInWithPassword({ email: 'admin@authbroker.dev', password: 'admin-password' });
  if (result.status !== 'signed-in') throw new Error('admin sign-in did not complete');
  return result.userId;
}

const ok = (s: { status: string }) => s.status === 'success';

describe("a project owner's admin session", () => {
  it('signs in with the seeded owner; project, API keys and owned projects resolve in every tab; a new key and a project update show everywhere', async () => {
    const em = emulator();
    const demoId = em.projects.demo.id;
    const {
      tabs: [a, b],
    } = await start(2);
    for (const tab of [a!, b!]) {
      await tab.subscribe('admin', { kind: 'adminSession' });
      await tab.subscribe('user', { kind: 'session' });
    }
    const adminId = await adminSignIn(a!);
    await b!.waitFor('admin', (s) => (s.data as SessionInfo).status === 'signed-in');
    expect(b!.latest('admin')!.data).toEqual({ status: 'signed-in', userId: adminId });
    // The owner's session is not the app user's: that one stays signed out.
    expect(b!.latest('user')!.data).toMatchObject({ status: 'signed-out' });

    for (const tab of [a!, b!]) {
      await tab.subscribe('project', { kind: 'admin.project' });
      await tab.subscribe('keys', { kind: 'admin.apiKeys' });
      await tab.subscribe('owned', { kind: 'admin.ownedProjects' });
      await tab.subscribe('public', { kind: 'project' });
      for (const id of ['project', 'keys', 'owned', 'public']) await tab.waitFor(id, ok);
    }
    expect((b!.latest('project')!.data as AdminProjectModel).id).toBe(demoId);
    expect((b!.latest('owned')!.data as AdminProjectModel[]).map((p) => p.id)).toContain(demoId);
    const keysBefore = (b!.latest('keys')!.data as ApiKey[]).length;

    const created = await a!.api.adminCreateApiKey({
      description: 'made through the broker',
      expiresAtMillis: em.env.clock.now() + 24 * 60 * 60 * 1000,
      hasPublishableClientKey: true,
      hasSecretServerKey: false,
      hasSuperSecretAdminKey: false,
    });
    expect(created.publishableClientKey).toMatch(/^pck_/);
    for (const tab of [a!, b!]) {
      const keys = (await tab.waitFor('keys', (s) => (s.data as ApiKey[]).some((k) => k.id === created.id)))
        .data as ApiKey[];
      expect(keys).toHaveLength(keysBefore + 1);
      // The list shows the key, never its secret.
      expect(JSON.stringify(keys)).not.toContain(created.publishableClientKey!);
    }

    const original = b!.latest('project')!.data as AdminProjectModel;
    const updated = await b!.api.adminUpdateProject({
      displayName: 'Renamed by its owner',
      description: 'via the broker',
    });
    expect(updated.displayName).toBe('Renamed by its owner');
    for (const tab of [a!, b!]) {
      await tab.waitFor('project', (s) => (s.data as AdminProjectModel).displayName === 'Renamed by its owner');
      await tab.waitFor('owned', (s) =>
        (s.data as AdminProjectModel[]).some((p) => p.id === demoId && p.displayName === 'Renamed by its owner'),
      );
      await tab.waitFor('public', (s) => (s.data as Project).displayName === 'Renamed by its owner');
    }
    await a!.api.adminUpdateProject({ displayName: original.displayName, description: original.description ?? null });
  });

  it('the admin access token is renewed by the broker when it expires: one token request, for the internal project', async () => {
    const em = emulator();
    const {
      net,
      tabs: [a, b, c],
    } = await start(3);
    await adminSignIn(a!);
    expect((await b!.api.read({ kind: 'admin.project' })).id).toBe(em.projects.demo.id);
    const before = await tokenRequests(em);

    em.env.clock.advance(TEN_MINUTES + 1000);
    net.attempts.length = 0;
    const reads = await Promise.all([
      a!.api.read({ kind: 'admin.apiKeys' }),
      b!.api.read({ kind: 'admin.ownedProjects' }),
      c!.api.read({ kind: 'admin.emailTemplates' }),
      c!.api.read({ kind: 'admin.permissionDefinitions' }),
    ]);
    expect(reads.every((r) => Array.isArray(r))).toBe(true);
    // This broker's own token requests, as its fetch saw them: the emulator's counter is shared by every broker
    // this file started, and one still settling from an earlier test could land in this window on a busy machine.
    const grants = net.attempts.filter((x) => x.call === '/auth/oauth/token');
    expect(grants, JSON.stringify(net.attempts.map((x) => [x.method, x.call, x.outcome]))).toHaveLength(1);
    expect((await tokenRequests(em)) - before).toBeGreaterThanOrEqual(1);
    const form = new URLSearchParams(grants[0]!.requestBody ?? '');
    expect(form.get('grant_type')).toBe('refresh_token');
    expect(form.get('client_id')).toBe('internal');
    // No call was answered with an expired-token error first: the broker renewed before sending.
    expect(net.attempts.filter((x) => x.knownError !== null)).toEqual([]);
    const status = await a!.api.status();
    expect(status.adminSession.status).toBe('signed-in');
    expect(status.tokenRefreshes).toBe(1);
  });

  it('admin sign-out: the service session is deleted; with an expired token and no network it still happens at once', async () => {
    const em = emulator();
    const {
      net,
      tabs: [a, b],
    } = await start(2);
    await b!.subscribe('admin', { kind: 'adminSession' });
    await adminSignIn(a!);
    await a!.api.adminSignOut();
    await b!.waitFor('admin', (s) => (s.data as SessionInfo).status === 'signed-out');
    expect(b!.latest('admin')!.data).toMatchObject({ lastEnd: { reason: 'signed-out' } });
    expect(em.env.stats.snapshot().requests['DELETE /auth/sessions/current']?.['200']).toBe(1);

    await adminSignIn(a!);
    await b!.waitFor('admin', (s) => (s.data as SessionInfo).status === 'signed-in');
    em.env.clock.advance(TEN_MINUTES + 1000);
    net.offline = true;
    const outcome = await Promise.race([
      a!.api.adminSignOut().then(() => 'signed out'),
      settle(1000).then(() => 'still waiting'),
    ]);
    expect(outcome).toBe('signed out');
    await b!.waitFor('admin', (s) => (s.data as SessionInfo).status === 'signed-out');
    net.offline = false;
  });
});

/** The browser's part of an OAuth sign-in: authorize → consent page → the service's callback. */
async function browserFollows(authorizeUrl: string, email: string): Promise<string> {
  const response = await fetch(authorizeUrl, { redirect: 'manual' });
  expect(response.status, await response.clone().text()).toBe(307);
  const consentUrl = new URL(response.headers.get('location')!);
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  const atCallback = await consent({ consentUrl, cookie } as StartedFlow, { email, display_name: 'Ada Broker' });
  const back = await callback(atCallback, cookie);
  expect(back.status, back.text).toBe(303);
  return back.location!;
}

describe('OAuth through the broker', () => {
  it('startOAuth returns the authorize URL; the callback completed in another tab signs every tab in; a second completion is refused', async () => {
    const em = emulator();
    const {
      tabs: [a, b, c],
    } = await start(3);
    await c!.subscribe('session', { kind: 'session' });
    await c!.subscribe('user', { kind: 'currentUser' });
    const { url } = await a!.api.startOAuth({
      providerId: 'GitHub',
      redirectUri: `${REDIRECT}?code=old&state=old`,
      afterCallbackRedirectUrl: `${APP}/after`,
    });
    const authorize = new URL(url);
    expect(authorize.origin + authorize.pathname).toBe(`${em.url}/api/v1/auth/oauth/authorize/github`);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: em.projects.demo.id,
      code_challenge_method: 'S256',
      response_type: 'code',
      grant_type: 'authorization_code',
      type: 'authenticate',
    });
    // The PKCE verifier stays in the broker: the URL carries only its challenge.
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    // The old code and state are gone; the flow's own state rides in the redirect URI (failed callbacks lack one).
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${REDIRECT}?state=${authorize.searchParams.get('state')}`);

    const email = uniqueEmail('oauth');
    const callbackUrl = await browserFollows(url, email);
    expect(new URL(callbackUrl).searchParams.get('state')).toBe(authorize.searchParams.get('state'));

    const result = await b!.api.completeOAuth({ callbackUrl });
    expect(result).toMatchObject({
      status: 'signed-in',
      isNewUser: true,
      type: 'authenticate',
      afterCallbackRedirectUrl: `${APP}/after`,
    });
    const userId = (result as { userId: string }).userId;
    await c!.waitFor('session', (s) => (s.data as SessionInfo).status === 'signed-in');
    expect(c!.latest('session')!.data).toEqual({ status: 'signed-in', userId });
    const user = (await c!.waitFor('user', (s) => (s.data as User | null)?.id === userId)).data as User;
    expect(user).toMatchObject({ primaryEmail: email, displayName: 'Ada Broker', hasPassword: false });
    expect((await a!.api.status()).session).toEqual({ status: 'signed-in', userId });

    const again = await c!.api.completeOAuth({ callbackUrl }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ClientError);
    expect(again).toMatchObject({ code: 'OAUTH_FLOW_NOT_FOUND' });
    expect(em.env.stats.snapshot().token_grants.authorization_code).toBe(1);
    expect((await a!.api.status()).session).toEqual({ status: 'signed-in', userId });
  });

  it('a tampered state finds no flow and consumes nothing; a state swapped with another flow cannot redeem its code', async () => {
    const em = emulator();
    const {
      tabs: [a, b],
    } = await start(2);
    await b!.subscribe('session', { kind: 'session' });
    const first = await a!.api.startOAuth({ providerId: 'github', redirectUri: REDIRECT });
    const second = await a!.api.startOAuth({ providerId: 'github', redirectUri: REDIRECT });
    const callbackUrl = new URL(await browserFollows(first.url, uniqueEmail('tamper')));

    const tampered = new URL(callbackUrl);
    tampered.searchParams.set('state', `${callbackUrl.searchParams.get('state')}x`);
    const refused = await b!.api.completeOAuth({ callbackUrl: tampered.toString() }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ClientError);
    expect(['OAUTH_FLOW_NOT_FOUND', 'OAUTH_STATE_MISMATCH']).toContain((refused as ClientError).code);
    expect(b!.latest('session')!.data).toMatchObject({ status: 'signed-out' });
    expect(em.env.stats.snapshot().token_grants.authorization_code).toBe(0);

    // The untouched callback still completes: the tampered one consumed nothing.
    const result = await a!.api.completeOAuth({ callbackUrl: callbackUrl.toString() });
    expect(result).toMatchObject({ status: 'signed-in', isNewUser: true });
    await b!.waitFor('session', (s) => (s.data as SessionInfo).status === 'signed-in');
    const sessionKey = broker!.parts.session.sessionKey;

    // A third flow's code under the second flow's state: the second flow's PKCE verifier does not fit it.
    const third = await a!.api.startOAuth({ providerId: 'github', redirectUri: REDIRECT });
    const swapped = new URL(await browserFollows(third.url, uniqueEmail('swap')));
    swapped.searchParams.set('state', new URL(second.url).searchParams.get('state')!);
    const mixed = await b!.api.completeOAuth({ callbackUrl: swapped.toString() }).catch((e: unknown) => e);
    expect(isKnownError(mixed, 'INVALID_AUTHORIZATION_CODE')).toBe(true);
    expect(em.env.stats.snapshot().token_grants.authorization_code).toBe(1);
    // Nothing changed for the signed-in user.
    expect(broker!.parts.session.sessionKey).toBe(sessionKey);
    expect(b!.latest('session')!.data).toEqual({ status: 'signed-in', userId: (result as { userId: string }).userId });
  });
});
