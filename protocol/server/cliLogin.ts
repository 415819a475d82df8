/**
 * The command-line side of "sign in with your browser": a CLI (or a desktop app) starts a login, shows
 * the person a link to the app's confirmation page, and polls until a signed-in browser confirms it
 * there; the service then hands the CLI a session of its own to keep. Only the project's publishable
 * key is needed, as a CLI is a client.
 */
import { requireNonEmptyString, requireObject } from '../args.js';
import { ClientError, HttpStatusError, InvalidArgumentError, NetworkError, ProtocolError } from '../errors/errors.js';
import * as endpoints from '../endpoints/misc.js';
import { partialUserOfAccessToken, type PartialUser } from '../partialUser.js';
import { systemClock, type Clock } from '../retry.js';
import { refreshAccessToken } from '../tokenGrant.js';
import { createRefreshingTokenSource } from '../tokenSource.js';
import { createTransport, type TokenSource } from '../transport.js';

/** The app's confirmation page, as the official SDK's handler names it (`handlerPaths.cliAuthConfirm`). */
export const CLI_CONFIRM_PATH = '/handler/cli-auth-confirm';
/** How long a login waits for the browser unless told otherwise: ten minutes, as the service's own CLI template. */
const DEFAULT_EXPIRES_IN_MILLIS = 10 * 60 * 1000;
const MAX_EXPIRES_IN_MILLIS = 24 * 3600 * 1000;
const DEFAULT_POLL_INTERVAL_MILLIS = 2000;

/** The options of {@link startCliLogin}. */
export interface CliLoginOptions {
  /** The service's base URL (`https://api.stack-auth.com`, a self-hosted one, or the emulator's). */
  baseUrl: string;
  projectId: string;
  publishableClientKey: string;
  /** Where the app runs (`https://app.example.com`): its confirmation page is opened there. */
  appUrl: string;
  /** The confirmation page's path in the app (default `/handler/cli-auth-confirm`, the SDK's). */
  confirmPath?: string;
  /** How long the person has to confirm, at most 24 hours (default 10 minutes). */
  expiresInMillis?: number;
  /**
   * The refresh token of an anonymous user the CLI already signed up: a browser with nobody signed in
   * may take that user over and keep its data by signing up (the same user id).
   */
  anonRefreshToken?: string;
  /** The wait between two polls (default 2 s). */
  pollIntervalMillis?: number;
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
  /** Time and timers (default: the system's); tests pass a fake one. */
  clock?: Clock;
  /** Headers added to every request (never ones that carry keys or tokens). */
  extraRequestHeaders?: Record<string, string>;
}

/** The session a confirmed CLI login gives: the CLI's own to keep (its refresh token) and use. */
export interface CliSession {
  /** Keep it (e.g. in a file only the person can read): it signs the CLI in until it is revoked. */
  refreshToken: string;
  /** A fresh access token for the calls of the moment. */
  accessToken: string;
  /** The user, as the access token says. */
  user: PartialUser;
  /** The session as a token source that renews the access token when needed (for `createTransport`). */
  tokens: TokenSource;
}

/** A login started: the page to open, and the wait for the browser's confirmation. */
export interface CliLogin {
  /** The confirmation page to open in the browser, with the login code. */
  url: string;
  /** The code the page confirms (in `url`). */
  loginCode: string;
  /** When the login can no longer be confirmed (ms since the epoch). */
  expiresAtMillis: number;
  /**
   * Polls until the browser confirms: the session. CLI_LOGIN_EXPIRED when the time runs out,
   * CLI_LOGIN_USED when the session went to another poll of the same login; `signal` stops waiting.
   */
  waitForSession(options?: { signal?: AbortSignal }): Promise<CliSession>;
}

function checkOptions(options: CliLoginOptions): { confirmUrl: URL; expiresInMillis: number; interval: number } {
  requireObject(options, 'options');
  requireNonEmptyString(options.publishableClientKey, 'publishableClientKey');
  let confirmUrl: URL;
  try {
    confirmUrl = new URL(options.confirmPath ?? CLI_CONFIRM_PATH, requireNonEmptyString(options.appUrl, 'appUrl'));
    if (confirmUrl.protocol !== 'http:' && confirmUrl.protocol !== 'https:') throw new Error();
  } catch (error) {
    if (error instanceof InvalidArgumentError) throw error;
    throw new InvalidArgumentError(
      'appUrl',
      `appUrl must be the app's http(s) URL, got ${JSON.stringify(options.appUrl)}.`,
    );
  }
  const expiresInMillis = options.expiresInMillis ?? DEFAULT_EXPIRES_IN_MILLIS;
  if (!Number.isInteger(expiresInMillis) || expiresInMillis <= 0 || expiresInMillis > MAX_EXPIRES_IN_MILLIS)
    throw new InvalidArgumentError('expiresInMillis', 'expiresInMillis must be a whole number of ms, up to 24 hours.');
  const interval = options.pollIntervalMillis ?? DEFAULT_POLL_INTERVAL_MILLIS;
  if (!Number.isFinite(interval) || interval < 100)
    throw new InvalidArgumentError('pollIntervalMillis', 'pollIntervalMillis must be at least 100 ms.');
  return { confirmUrl, expiresInMillis, interval };
}

/** A poll that failed on the way (the network, the service's 5xx): the login may still be waiting. */
const isPassing = (error: unknown) =>
  error instanceof NetworkError || (error instanceof HttpStatusError && error.status >= 500);

/**
 * Starts a CLI login: the service gives a login code for the browser and a polling code the CLI keeps.
 * Show `url` to the person (or open it); `waitForSession()` resolves once they confirm it in a
 * browser where they are signed in (the app's confirmation page calls `client.confirmCliLogin`).
 */
export async function startCliLogin(options: CliLoginOptions): Promise<CliLogin> {
  const { confirmUrl, expiresInMillis, interval } = checkOptions(options);
  const clock = options.clock ?? systemClock;
  const connection = {
    baseUrl: options.baseUrl,
    projectId: options.projectId,
    publishableClientKey: options.publishableClientKey,
    fetch: options.fetch,
    clock,
  };
  const t = createTransport({ ...connection, accessType: 'client', extraRequestHeaders: options.extraRequestHeaders });
  const started = await endpoints.startCliLogin(t, {
    expires_in_millis: expiresInMillis,
    ...(options.anonRefreshToken === undefined ? {} : { anon_refresh_token: options.anonRefreshToken }),
  });
  confirmUrl.searchParams.set('login_code', started.login_code);
  const expiresAtMillis = Date.parse(started.expires_at);

  async function sessionOf(refreshToken: string): Promise<CliSession> {
    const { access_token: accessToken } = await refreshAccessToken(connection, refreshToken);
    const user = partialUserOfAccessToken(accessToken);
    if (user === null)
      throw new ProtocolError('The service answered the CLI login with an access token naming no user.');
    const tokens = createRefreshingTokenSource({ ...connection, refreshToken, accessToken });
    return { refreshToken, accessToken, user, tokens };
  }

  return {
    url: confirmUrl.href,
    loginCode: started.login_code,
    expiresAtMillis,
    async waitForSession({ signal } = {}) {
      for (;;) {
        signal?.throwIfAborted();
        let polled: Awaited<ReturnType<typeof endpoints.pollCliLogin>> | null = null;
        try {
          polled = await endpoints.pollCliLogin(t, started.polling_code);
        } catch (error) {
          if (!isPassing(error) || clock.now() >= expiresAtMillis) throw error;
        }
        if (polled?.status === 'success') return sessionOf(polled.refresh_token);
        if (polled?.status === 'expired')
          throw new ClientError(
            'CLI_LOGIN_EXPIRED',
            'Nobody confirmed the login in a browser in time: start it again.',
          );
        if (polled?.status === 'used')
          throw new ClientError(
            'CLI_LOGIN_USED',
            'The session of this login went to another poll of it (its answer may have been lost on the way): start it again.',
          );
        await clock.sleep(interval, signal);
      }
    },
  };
}

/**
 * {@link startCliLogin} with the link shown: `showUrl` gets it (default: a line on stderr), then the
 * session once the person confirms. The one call a CLI's `login` command needs.
 */
export async function promptCliLogin(
  options: CliLoginOptions & { showUrl?: (url: string, loginCode: string) => void; signal?: AbortSignal },
): Promise<CliSession> {
  const login = await startCliLogin(options);
  const show =
    options.showUrl ??
    ((url: string) => console.error(`Open this link in a browser where you are signed in to confirm:\n${url}`));
  show(login.url, login.loginCode);
  return login.waitForSession({ signal: options.signal });
}
