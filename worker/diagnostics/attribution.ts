/**
 * Attribution without async context: a worker cannot tell which tab's call a request belongs to,
 * so the code that knows (a tab's subscription, an action, a fetch) makes copies of what it uses —
 * transports, the sessions, the cache writer — that carry its Trace. Each request a copy sends is
 * a record of that trace; a token refresh it triggers is the trace's too.
 */
import type { RequestCause } from '../../contract/diagnostics.js';
import type { FetchContext, QuerySpec } from '../../contract/queries.js';
import type { AccessType } from '../../protocol/resources/common.js';
import type { TokenSource, Transport, TransportObserver } from '../../protocol/transport.js';
import type { ApiContext, ApiSession, ApiTransports } from '../api/context.js';
import type { FetchCause } from '../cache/cacheEntry.js';
import type { QueryFilter } from '../cache/queryClient.js';
import type { RecorderKit } from './kit.js';
import { Trace, type RequestLog } from './requestLog.js';

/** The log that records, and how to make a transport (handed over, see kit.ts). */
export interface Recording {
  readonly log: RequestLog;
  readonly createTransport: RecorderKit['createTransport'];
}

/** A token source that can be told who asks (the broker's Session). */
type AttributableTokens = TokenSource & { getAccessToken(caller?: unknown): Promise<string | null> };

function bothObservers(first: TransportObserver | undefined, second: TransportObserver): TransportObserver {
  return {
    onResponse: (event) => {
      first?.onResponse?.(event);
      second.onResponse?.(event);
    },
    onNetworkError: (event) => {
      first?.onNetworkError?.(event);
      second.onNetworkError?.(event);
    },
    onRetry: (event) => {
      first?.onRetry?.(event);
      second.onRetry?.(event);
    },
  };
}

/** The same tokens, asked for on behalf of `trace` (a refresh they need is then the trace's). */
function tokensFor(tokens: TokenSource | undefined, trace: Trace): TokenSource | undefined {
  if (tokens === undefined) return undefined;
  const source = tokens as AttributableTokens;
  return {
    renewable: source.renewable,
    getAccessToken: () => source.getAccessToken(trace),
    invalidateAccessToken: (token) => source.invalidateAccessToken(token),
    ...(source.getRefreshToken === undefined ? {} : { getRefreshToken: () => source.getRefreshToken!() }),
  };
}

/**
 * `base`, with each request recorded as `trace`'s (or, without one, as the fallback cause's) while
 * the log records; otherwise `base` as it is.
 */
function recordedTransport<A extends AccessType>(
  base: Transport<A>,
  recording: Recording,
  trace: Trace | undefined,
  fallback: RequestCause,
): Transport<A> {
  const { log } = recording;
  return {
    baseUrl: base.baseUrl,
    projectId: base.projectId,
    accessType: base.accessType,
    options: base.options,
    request<T>(request: Parameters<Transport<A>['request']>[0]): Promise<T> {
      const own = trace ?? log.trace(fallback);
      if (own === undefined || !log.recording) return base.request<T>(request);
      // A copy per request: its observer knows which record the attempts belong to.
      return log.record(request.method, request.path, own, (observer) =>
        recording
          .createTransport<A>({
            ...base.options,
            observer: bothObservers(base.options.observer, observer),
            userTokens: tokensFor(base.options.userTokens, own),
            adminTokens: tokensFor(base.options.adminTokens, own),
          })
          .request<T>(request),
      );
    },
    withUserTokens: (userTokens) => recordedTransport(base.withUserTokens(userTokens), recording, trace, fallback),
  };
}

/**
 * Every transport of `base`, recorded as `trace`'s requests. The token endpoint's exchanges (the
 * OAuth code) open a record at their first attempt event.
 */
export function recordedTransports(
  base: ApiTransports,
  recording: Recording,
  trace: Trace | undefined,
  fallback: RequestCause,
): ApiTransports {
  const { log } = recording;
  const wrap = <A extends AccessType>(transport: Transport<A>) =>
    recordedTransport(transport, recording, trace, fallback);
  const client = wrap(base.client);
  return {
    client,
    internal: () => wrap(base.internal()),
    internalSignIn: () => wrap(base.internalSignIn()),
    admin: (projectId) => wrap(base.admin(projectId)),
    withAccessToken: (token) => wrap(base.withAccessToken(token)),
    tokenEndpoint(slot) {
      const options = base.tokenEndpoint(slot);
      const own = trace ?? log.trace(fallback);
      if (own === undefined) return options;
      let events: TransportObserver | null = null;
      const opened = (path: string) => (events ??= log.observe(log.begin('POST', path, own), true));
      return {
        ...options,
        observer: bothObservers(options.observer, {
          onResponse: (event) => opened(event.path).onResponse?.(event),
          onNetworkError: (event) => opened(event.path).onNetworkError?.(event),
          onRetry: (event) => opened(event.path).onRetry?.(event),
        }),
      };
    },
  };
}

/** A session whose token refreshes are `trace`'s. */
function sessionFor(session: ApiSession, trace: Trace): ApiSession {
  const source = session as ApiSession & { getAccessToken(caller?: unknown): Promise<string | null> };
  return {
    get sessionKey() {
      return session.sessionKey;
    },
    state: () => session.state(),
    start: () => session.start(),
    getAccessToken: () => source.getAccessToken(trace),
    currentAccessToken: () => session.currentAccessToken(),
    getRefreshToken: () => session.getRefreshToken(),
    signIn: (tokens, userId) => session.signIn(tokens, userId),
    end: (end, expectedKey) => session.end(end, expectedKey),
  };
}

/** The cache as mutations see it, with a cause for the refetches their invalidations start. */
export interface AttributableCacheWriter {
  setQueryData(spec: QuerySpec, value: unknown): void;
  invalidate(filter: QueryFilter, cause?: FetchCause): void;
}

/**
 * What the API modules get for one action: every request it sends, refresh it needs and refetch it starts is `trace`'s.
 */
export function contextFor(
  context: ApiContext,
  parts: { transports: ApiTransports; queries: AttributableCacheWriter; recording: Recording },
  trace: Trace,
): ApiContext {
  const { recording, queries } = parts;
  return {
    ...context,
    session: sessionFor(context.session, trace),
    adminSession: context.adminSession === null ? null : sessionFor(context.adminSession, trace),
    transports: recordedTransports(parts.transports, recording, trace, trace.cause),
    queries: {
      setQueryData: (spec, value) => queries.setQueryData(spec, value),
      invalidate: (filter) => queries.invalidate(filter, recording.log.trace({ ...trace.cause, via: 'invalidate' })),
    },
  };
}

/** A cache fetch's transports; the rest of its context is the broker's. */
export type AttributedFetchContext = Omit<FetchContext, 'lazyFetches'>;

/** What a cache fetch gets: its requests are the fetch's trace's (undefined for a fetch without one). */
export function fetchContextFor(
  cause: FetchCause | undefined,
  parts: { transports: ApiTransports; recording: Recording; isSignedIn(): boolean },
): AttributedFetchContext | undefined {
  if (!(cause instanceof Trace)) return undefined;
  const transports = recordedTransports(parts.transports, parts.recording, cause, cause.cause);
  return {
    client: transports.client,
    isSignedIn: parts.isSignedIn,
    internal: () => transports.internal(),
    admin: (projectId) => transports.admin(projectId),
  };
}
