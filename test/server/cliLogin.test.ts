/**
 * The CLI side of "sign in with your browser" (`startCliLogin` / `promptCliLogin` of
 * authbroker/server) against the emulator: the browser's part is played with the endpoint bindings,
 * as a signed-in page's broker plays it (test/support/features/cliLogin.ts plays it through a broker).
 */
import { describe, expect, it } from 'vitest';
import * as endpoints from '../../protocol/endpoints/index.js';
import { ClientError, InvalidArgumentError } from '../../protocol/errors/errors.js';
import { systemClock, type Clock } from '../../protocol/retry.js';
import { promptCliLogin, startCliLogin, type CliLoginOptions } from '../../protocol/server.js';
import { advanceClock, signUp, userTransport } from '../support/authFlows.js';
import { transportFor, useEmulator } from '../support/emulator.js';

const emulator = useEmulator();
const APP = 'http://localhost:5173';

/** Polls without waiting in real time: each sleep is one turn of the event loop, counted. */
function turnClock(): Clock & { sleeps: number } {
  const clock = {
    ...systemClock,
    sleeps: 0,
    now: () => emulator().env.clock.now(),
    sleep: async (_millis: number, signal?: AbortSignal) => {
      clock.sleeps += 1;
      await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
    },
  };
  return clock;
}

function options(extra: Partial<CliLoginOptions> = {}): CliLoginOptions {
  const { demo } = emulator().projects;
  return {
    baseUrl: emulator().url,
    projectId: demo.id,
    publishableClientKey: demo.publishableClientKey,
    appUrl: APP,
    clock: turnClock(),
    ...extra,
  };
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

const codeOf = (error: unknown) => (error instanceof ClientError ? error.code : String(error));

describe('CLI login, the CLI side', () => {
  it('shows the confirmation link, waits for the browser, and returns the session the browser handed over', async () => {
    const em = emulator();
    const browser = await signUp(em);
    const shown: string[] = [];
    const session = await promptCliLogin({
      ...options({ confirmPath: '/cli/confirm' }),
      showUrl: (url, loginCode) => {
        shown.push(url);
        expect(new URL(url).searchParams.get('login_code')).toBe(loginCode);
        // The person confirms in a signed-in browser a little later.
        setTimeout(
          () =>
            void endpoints.completeCliLogin(userTransport(em, browser), {
              login_code: loginCode,
              refresh_token: browser.refresh_token,
            }),
          20,
        );
      },
    });
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatch(/^http:\/\/localhost:5173\/cli\/confirm\?login_code=[0-9a-z]{45}$/);
    expect(session.refreshToken).toBe(browser.refresh_token);
    expect(session.user).toMatchObject({ id: browser.user_id, primaryEmail: browser.email, isAnonymous: false });
    // The session works on its own: its access token reads the user, and its token source renews.
    const me = await endpoints.getCurrentUser(userTransport(em, { access_token: session.accessToken }));
    expect(me?.id).toBe(browser.user_id);
    expect(await session.tokens.getAccessToken()).toBe(session.accessToken);
  });

  it("starts at the SDK's page by default and carries the CLI's anonymous user for the browser to take over", async () => {
    const em = emulator();
    const client = transportFor(em, 'client');
    const guest = await endpoints.signUpAnonymously(client);
    const login = await startCliLogin(options({ anonRefreshToken: guest.refresh_token }));
    expect(new URL(login.url).pathname).toBe('/handler/cli-auth-confirm');
    expect(login.expiresAtMillis - em.env.clock.now()).toBeGreaterThan(9 * 60_000);
    expect(login.expiresAtMillis - em.env.clock.now()).toBeLessThanOrEqual(10 * 60_000);

    // Nobody is signed in in the browser: it takes the guest over, upgrades it by signing up, then confirms.
    expect(await endpoints.checkCliLogin(client, login.loginCode)).toEqual({ cli_session_state: 'anonymous' });
    const claimed = await endpoints.claimCliAnonymousSession(client, login.loginCode);
    const upgraded = await endpoints.signUpWithPassword(
      userTransport(em, { access_token: claimed.access_token }),
      {
        email: `cli-guest-${Date.now()}@example.com`,
        password: 'correct horse battery',
        verification_callback_url: `${APP}/handler/email-verification`,
      },
      { user: 'optional' },
    );
    await endpoints.completeCliLogin(client, { login_code: login.loginCode, refresh_token: upgraded.refresh_token });
    const session = await login.waitForSession();
    expect(session.user).toMatchObject({ id: guest.user_id, isAnonymous: false, isRestricted: false });
  });

  it('says when the login expired, or its session went to another poll', async () => {
    const em = emulator();
    const expiring = await startCliLogin(options({ expiresInMillis: 60_000 }));
    await advanceClock(em, 61_000);
    expect(codeOf(await failureOf(expiring.waitForSession()))).toBe('CLI_LOGIN_EXPIRED');

    // Another process polls first (with the same polling code, which only the service and the CLI know):
    // played here by answering the CLI's first poll as `used`.
    const usedFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      return String(input).endsWith('/auth/cli/poll')
        ? new Response(JSON.stringify({ status: 'used' }), { status: 200, headers: response.headers })
        : response;
    };
    const used = await startCliLogin(options({ fetch: usedFetch }));
    expect(codeOf(await failureOf(used.waitForSession()))).toBe('CLI_LOGIN_USED');
  });

  it('keeps polling through a network failure, and stops when its signal aborts', async () => {
    const em = emulator();
    let failures = 1;
    const flaky: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/auth/cli/poll') && failures > 0) {
        failures -= 1;
        throw new TypeError('fetch failed');
      }
      return fetch(input, init);
    };
    const clock = turnClock();
    const browser = await signUp(em);
    const login = await startCliLogin(options({ fetch: flaky, clock }));
    const waiting = login.waitForSession();
    while (clock.sleeps < 2) await new Promise((resolve) => setImmediate(resolve));
    await endpoints.completeCliLogin(userTransport(em, browser), {
      login_code: login.loginCode,
      refresh_token: browser.refresh_token,
    });
    expect((await waiting).user.id).toBe(browser.user_id);
    expect(failures).toBe(0);

    const abandoned = await startCliLogin(options());
    const controller = new AbortController();
    const stopped = abandoned.waitForSession({ signal: controller.signal });
    controller.abort(new Error('the person pressed Ctrl-C'));
    expect(String(await failureOf(stopped))).toMatch(/Ctrl-C/);
  });

  it('refuses bad options before asking the service anything', async () => {
    const refusals = await Promise.all([
      failureOf(startCliLogin(options({ appUrl: 'ftp://example.com' }))),
      failureOf(startCliLogin(options({ appUrl: '' }))),
      failureOf(startCliLogin(options({ expiresInMillis: 0 }))),
      failureOf(startCliLogin(options({ expiresInMillis: 25 * 3600 * 1000 }))),
      failureOf(startCliLogin(options({ pollIntervalMillis: 5 }))),
    ]);
    expect(refusals.map((error) => (error instanceof InvalidArgumentError ? error.argument : String(error)))).toEqual([
      'appUrl',
      'appUrl',
      'expiresInMillis',
      'expiresInMillis',
      'pollIntervalMillis',
    ]);
  });
});
