import { decodeResponse, encodeRequest, type RequestCredentials, type RequestSpec } from './codec.js';
import { networkErrorAfterFailure, readNavigatorOnline } from './diagnostics.js';
import { HttpStatusError, type NetworkError } from './errors/errors.js';
import { codeBelongsTo } from './errors/lineage.js';
import type { AccessType } from './resources/common.js';
import { decideRetry, systemClock, type AttemptOutcome, type Clock, type RetryReason } from './retry.js';
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

export interface ApiRequest extends RequestSpec {
  /** Whether to send the user's tokens. Default 'optional': sent when there are some. */
  user?: 'optional' | 'none';
  /** Send `x-stack-refresh-token` (only two endpoints read it). */
  sendRefreshToken?: boolean;
  signal?: AbortSignal | undefined;
  /** Fewer attempts than the standard five (e.g. 1 for a sign-out that will be queued on failure). */
  maxAttempts?: number;
}

export interface AttemptEvent {
  method: string;
  path: string;
  attempt: number;
}

/** Hooks for whoever keeps statistics and connectivity (the broker). None may throw. */
export interface TransportObserver {
  /** `code`: the known error the answer carried, when the caller reports it (the token endpoint does). */
  onResponse?(event: AttemptEvent & { status: number; durationMillis: number; code?: string | undefined }): void;
  onNetworkError?(event: AttemptEvent & { error: unknown }): void;
  onRetry?(event: AttemptEvent & { delayMillis: number; reason: RetryReason }): void;
}

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
  fetch?: typeof fetch | undefined;
  clock?: Clock | undefined;
  /** An attempt with no answer after this long counts as a network failure. Default 30 s. */
  attemptTimeoutMillis?: number | undefined;
  /** Awaited before every attempt, e.g. to hold requests while the network is known to be down. */
  beforeAttempt?: ((event: AttemptEvent, signal: AbortSignal | undefined) => Promise<void>) | undefined;
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

/** Observers are bookkeeping: a failing one must never change the outcome of a call. */
function notify(call: () => void): void {
  try {
    call();
  } catch {
    // ignored on purpose
  }
}

interface AttemptState {
  userTokenRenewed: boolean;
  adminTokenRenewed: boolean;
}

async function timedFetch(fetchFn: typeof fetch, url: string, init: RequestInit, timeoutMillis: number, outer: AbortSignal | undefined): Promise<Response> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let forward: (() => void) | undefined;
  // Raced, not just signalled: a fetch that ignores its signal must not hang the call forever.
  // Each rejection comes before the abort so that it, not fetch's own AbortError, wins the race.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new TypeError(`No response within ${timeoutMillis} ms`));
      controller.abort();
    }, timeoutMillis);
    forward = () => {
      reject(outer?.reason);
      controller.abort(outer?.reason);
    };
    outer?.addEventListener('abort', forward, { once: true });
  });
  try {
    return await Promise.race([fetchFn(url, { ...init, signal: controller.signal }), deadline]);
  } finally {
    clearTimeout(timer);
    if (forward !== undefined) outer?.removeEventListener('abort', forward);
  }
}

export function createTransport<A extends AccessType>(options: TransportOptions<A>): Transport<A> {
  const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
  const clock = options.clock ?? systemClock;
  const timeoutMillis = options.attemptTimeoutMillis ?? 30_000;

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
    const state: AttemptState = { userTokenRenewed: false, adminTokenRenewed: false };
    for (let attempt = 0; ; attempt++) {
      const event: AttemptEvent = { method: request.method, path: request.path, attempt };
      await options.beforeAttempt?.(event, request.signal);
      request.signal?.throwIfAborted();
      const credentials = await credentialsFor(request);
      // Getting a token may have taken a refresh; the caller may have given up meanwhile.
      request.signal?.throwIfAborted();
      const encoded = encodeRequest(options.baseUrl, request, credentials, options.extraRequestHeaders);
      const started = clock.now();
      let outcome: AttemptOutcome;
      let failure: unknown;
      try {
        const response = await timedFetch(fetchFn, encoded.url, encoded.init, timeoutMillis, request.signal);
        const decoded = await decodeResponse(response);
        notify(() => options.observer?.onResponse?.({ ...event, status: decoded.status, durationMillis: clock.now() - started }));
        if (decoded.kind === 'ok') return decoded.body as T;
        if (decoded.kind === 'known-error') {
          const code = decoded.error.code;
          let tokenRenewable = false;
          if (codeBelongsTo(code, 'INVALID_ACCESS_TOKEN') && credentials.accessToken !== undefined && options.userTokens?.renewable && !state.userTokenRenewed) {
            options.userTokens.invalidateAccessToken(credentials.accessToken);
            state.userTokenRenewed = tokenRenewable = true;
          } else if (
            codeBelongsTo(code, 'INVALID_ADMIN_ACCESS_TOKEN') &&
            credentials.adminAccessToken !== undefined &&
            options.adminTokens?.renewable &&
            !state.adminTokenRenewed
          ) {
            options.adminTokens.invalidateAccessToken(credentials.adminAccessToken);
            state.adminTokenRenewed = tokenRenewable = true;
          }
          outcome = { kind: 'known-error', code, tokenRenewable };
          failure = decoded.error;
        } else {
          outcome = { kind: 'http-error', status: decoded.status, body: decoded.body, retryAfter: decoded.retryAfter };
          failure = new HttpStatusError(decoded.status, decoded.body);
        }
      } catch (error) {
        if (request.signal?.aborted) throw request.signal.reason;
        if (!(error instanceof TypeError)) throw error;
        notify(() => options.observer?.onNetworkError?.({ ...event, error }));
        outcome = { kind: 'network-error' };
        failure = error;
      }
      const decision = decideRetry({ attempt, outcome, method: request.method, now: clock.now(), random: clock.random(), ...(request.maxAttempts === undefined ? {} : { maxAttempts: request.maxAttempts }) });
      if (!decision.retry) {
        throw outcome.kind === 'network-error' ? await networkFailure(failure, attempt + 1) : failure;
      }
      notify(() => options.observer?.onRetry?.({ ...event, delayMillis: decision.delayMillis, reason: decision.reason }));
      if (decision.delayMillis > 0) await clock.sleep(decision.delayMillis, request.signal);
    }
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
