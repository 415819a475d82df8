import {
  decodeResponse,
  encodeRequest,
  type DecodedResponse,
  type RequestCredentials,
  type RequestSpec,
} from './codec.js';
import { networkErrorAfterFailure, readNavigatorOnline } from './diagnostics.js';
import type { NetworkError } from './errors/errors.js';
import { codeBelongsTo } from './errors/lineage.js';
import { responseStatusError } from './errors/redact.js';
import type { AccessType } from './resources/common.js';
import { systemClock, type Clock, type WaitBeforeRetry } from './retry.js';
import { runWithRetries, type AttemptEvent, type AttemptResult, type TransportObserver } from './retryLoop.js';
import { assertUsableAccessToken } from './validation.js';

/** Where a transport gets a token that may expire; the broker's session is one. */
export interface TokenSource {
  /** A usable access token (refreshing first when needed), or null when there is none. */
  getAccessToken(): Promise<string | null>;
  /** The service refused `token`: forget it so the next `getAccessToken` renews it. */
  invalidateAccessToken(token: string): void;
  /** Whether `invalidateAccessToken` + `getAccessToken` can yield a different token. */
  readonly renewable: boolean;
  /** Only for the endpoints that read `x-stack-refresh-token`. */
  getRefreshToken?(): Promise<string | null>;
}

/** A token that is what it is: nothing to renew (e.g. a user's token forwarded to your server). */
export function staticTokenSource(token: string): TokenSource {
  assertUsableAccessToken(token, 'accessToken');
  return { renewable: false, getAccessToken: async () => token, invalidateAccessToken: () => undefined };
}

/** One API call as a transport takes it: the request, whose tokens it needs, and how it may be retried. */
export interface ApiRequest extends RequestSpec {
  /** Whether to send the user's tokens. Default 'optional': sent when there are some. */
  user?: 'optional' | 'none';
  /** Send `x-stack-refresh-token` (only two endpoints read it). */
  sendRefreshToken?: boolean;
  signal?: AbortSignal | undefined;
  /** Fewer attempts than the standard five (e.g. 1 for a sign-out that will be queued on failure). */
  maxAttempts?: number;
  /**
   * Whether sending the call twice does no harm, so that it may be repeated after a network failure
   * or a transient 5xx. Default: from the method (GET, PUT, PATCH, DELETE yes; POST no).
   */
  idempotent?: boolean;
  /** Whom the call is for, as the transport's `waitForTurn` reads it (the broker's tabs); opaque here. */
  onBehalfOf?: unknown;
}

export type { AttemptEvent, TransportObserver } from './retryLoop.js';

/**
 * The options of {@link createTransport}: the service, the project, the keys of one access type, and how requests are
 * sent.
 */
export interface TransportOptions<A extends AccessType = AccessType> {
  baseUrl: string;
  projectId: string;
  accessType: A;
  publishableClientKey?: string | undefined;
  secretServerKey?: string | undefined;
  superSecretAdminKey?: string | undefined;
  /** Admin access tokens (of the `internal` project); replaces the keys when present. */
  adminTokens?: TokenSource | undefined;
  /** The signed-in user's tokens. */
  userTokens?: TokenSource | undefined;
  /** Merged after the standard headers (the SDK's `extraRequestHeaders`). */
  extraRequestHeaders?: Readonly<Record<string, string>> | undefined;
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch | undefined;
  clock?: Clock | undefined;
  /** An attempt without its whole answer (body included) after this long counts as a network failure. Default 30 s. */
  attemptTimeoutMillis?: number | undefined;
  /** Awaited before every attempt, e.g. to hold requests while the network is known to be down. */
  beforeAttempt?: ((event: AttemptEvent, signal: AbortSignal | undefined) => Promise<void>) | undefined;
  /**
   * Each attempt's turn to be sent, for the request's `onBehalfOf` (the broker shares the service between its tabs):
   * resolves with the function that ends the turn. An attempt's deadline starts with its turn.
   */
  waitForTurn?: ((onBehalfOf: unknown, signal: AbortSignal | undefined) => Promise<() => void>) | undefined;
  /**
   * The wait before a retry; default `clock.sleep`. The broker ends a network failure's backoff early when the service
   * is reachable again.
   */
  waitBeforeRetry?: WaitBeforeRetry | undefined;
  observer?: TransportObserver | undefined;
  /** What the runtime's online flag is believed to be; default `navigator.onLine` where it exists. */
  navigatorOnline?: (() => boolean | null) | undefined;
  /** Whether to probe the API after the last network failure (default true). */
  diagnoseFailures?: boolean | undefined;
}

/** Sends API calls for one project and access type, with the whole pipeline of PROTOCOL.md §9.1. */
export interface Transport<A extends AccessType = AccessType> {
  readonly baseUrl: string;
  readonly projectId: string;
  readonly accessType: A;
  readonly options: Readonly<TransportOptions<A>>;
  /** Sends a call and returns the parsed body of its success response. */
  request<T>(request: ApiRequest): Promise<T>;
  /** The same project and credentials with other user tokens. */
  withUserTokens(userTokens: TokenSource | undefined): Transport<A>;
}

/**
 * How many times in a row one call may renew a refused access token. Twice, not once: the first
 * renewal may join a refresh that was already under way when the service refused the token, and
 * that refresh's token can have been minted before the service's verdict (its clock moved, or it
 * expired in flight). The second renewal starts after the refusal, so its token is new; a third
 * refusal in a row means the service refuses new tokens, and the call fails. An attempt that ends
 * any other way (a 429, a 5xx, a dropped connection) starts the count again: the call then waited,
 * and a token can expire during the wait as any token does. MAX_ATTEMPTS bounds it all.
 */
export const MAX_TOKEN_RENEWALS_PER_CALL = 2;

/**
 * The access tokens the service refused during one call, per kind of token, and the renewals since the last other
 * outcome.
 */
interface Renewals {
  refused: Set<string>;
  inARow: number;
}

/**
 * Whether to renew `token` after the service refused it: a renewable source, a token not refused
 * before in this call (a source never hands out a refused token twice), and renewals left in a row.
 */
function renewOnce(source: TokenSource | undefined, token: string | undefined, renewals: Renewals): boolean {
  if (
    token === undefined ||
    source?.renewable !== true ||
    renewals.refused.has(token) ||
    renewals.inARow >= MAX_TOKEN_RENEWALS_PER_CALL
  )
    return false;
  renewals.refused.add(token);
  renewals.inARow++;
  source.invalidateAccessToken(token);
  return true;
}

/**
 * A transport: sends API calls with the right headers, retries what may be retried, renews refused access
 * tokens, and turns failures into typed errors.
 */
export function createTransport<A extends AccessType>(options: TransportOptions<A>): Transport<A> {
  const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
  const clock = options.clock ?? systemClock;

  async function credentialsFor(request: ApiRequest): Promise<RequestCredentials> {
    const credentials: RequestCredentials = {
      projectId: options.projectId,
      accessType: options.accessType,
      publishableClientKey: options.publishableClientKey,
      secretServerKey: options.secretServerKey,
      superSecretAdminKey: options.superSecretAdminKey,
    };
    if (options.adminTokens !== undefined) {
      const adminToken = await options.adminTokens.getAccessToken();
      if (adminToken !== null) credentials.adminAccessToken = adminToken;
    }
    if (request.user !== 'none' && options.userTokens !== undefined) {
      const accessToken = await options.userTokens.getAccessToken();
      if (accessToken !== null) credentials.accessToken = accessToken;
      if (request.sendRefreshToken === true) {
        const refreshToken = (await options.userTokens.getRefreshToken?.()) ?? null;
        if (refreshToken !== null) credentials.refreshToken = refreshToken;
      }
    }
    return credentials;
  }

  function networkFailure(cause: unknown, attempts: number): Promise<NetworkError> {
    return networkErrorAfterFailure({
      baseUrl: options.baseUrl,
      cause,
      attempts,
      fetch: fetchFn,
      navigatorOnline: options.navigatorOnline?.() ?? readNavigatorOnline(),
      now: () => clock.now(),
      skipProbes: options.diagnoseFailures === false,
    });
  }

  async function request<T>(request: ApiRequest): Promise<T> {
    const renewals: Record<'user' | 'admin', Renewals> = {
      user: { refused: new Set(), inARow: 0 },
      admin: { refused: new Set(), inARow: 0 },
    };
    let credentials: RequestCredentials;
    return runWithRetries<T>(
      {
        method: request.method,
        path: request.path,
        clock,
        attemptTimeoutMillis: options.attemptTimeoutMillis,
        signal: request.signal,
        idempotent: request.idempotent,
        maxAttempts: request.maxAttempts,
        observer: options.observer,
        beforeAttempt: options.beforeAttempt,
        waitForTurn: options.waitForTurn && ((signal) => options.waitForTurn!(request.onBehalfOf, signal)),
        waitBeforeRetry: options.waitBeforeRetry,
        onOtherFailure: () => (renewals.user.inARow = renewals.admin.inARow = 0),
        networkFailure,
      },
      {
        prepare: async () => {
          credentials = await credentialsFor(request);
        },
        send: async (signal) => {
          const encoded = encodeRequest(options.baseUrl, request, credentials, options.extraRequestHeaders);
          const decoded = await decodeResponse(await fetchFn(encoded.url, { ...encoded.init, signal }));
          return classify<T>(decoded, credentials, renewals);
        },
      },
    );
  }

  /** What an answer means for the retry loop; a refused access token is renewed here, once per token. */
  function classify<T>(
    decoded: DecodedResponse,
    credentials: RequestCredentials,
    renewals: Record<'user' | 'admin', Renewals>,
  ): AttemptResult<T> {
    const { status } = decoded;
    if (decoded.kind === 'ok') return { ok: true, value: decoded.body as T, status };
    if (decoded.kind === 'known-error') {
      const code = decoded.error.code;
      const tokenRenewable = codeBelongsTo(code, 'INVALID_ACCESS_TOKEN')
        ? renewOnce(options.userTokens, credentials.accessToken, renewals.user)
        : codeBelongsTo(code, 'INVALID_ADMIN_ACCESS_TOKEN') &&
          renewOnce(options.adminTokens, credentials.adminAccessToken, renewals.admin);
      return { ok: false, outcome: { kind: 'known-error', code, tokenRenewable }, error: decoded.error, status };
    }
    const { body, retryAfter } = decoded;
    return {
      ok: false,
      outcome: { kind: 'http-error', status, body, retryAfter },
      error: responseStatusError(status, body, undefined, retryAfter),
      status,
    };
  }

  return {
    baseUrl: options.baseUrl,
    projectId: options.projectId,
    accessType: options.accessType,
    options,
    request,
    withUserTokens: (userTokens) => createTransport({ ...options, userTokens }),
  };
}
