import { ClientError, NetworkError } from '../protocol/errors/errors.js';
import type { Clock } from '../protocol/clock.js';
import { sleepOn, type WaitBeforeRetry } from '../protocol/retry.js';
import type { AccessType } from '../protocol/resources/common.js';
import type { TokenEndpointOptions } from '../protocol/tokens.js';
import {
  createTransport,
  staticTokenSource,
  type TokenSource,
  type Transport,
  type TransportObserver,
  type TransportOptions,
} from '../protocol/transport.js';
import type { ApiTransports } from './api/context.js';
import type { ResolvedBrokerConfig } from './config.js';
import type { Connectivity } from './connectivity/connectivity.js';
import { RequestScheduler, type OnBehalfOf } from './requests/scheduler.js';
import { serviceUnreachableMessage } from '../protocol/diagnostics.js';

export interface TransportsOptions {
  config: ResolvedBrokerConfig;
  fetch: typeof fetch;
  clock: Clock;
  connectivity: Connectivity;
  userSession: TokenSource & { readonly sessionKey: string | null };
  adminSession: (TokenSource & { readonly sessionKey: string | null }) | null;
  superSecretAdminKey: string | undefined;
  /** Told about every attempt (the broker's diagnostics), besides connectivity. */
  observer?: TransportObserver;
}

/** Every way the broker reaches the service (the API modules' view of it, declared with them). */
export type Transports = ApiTransports;

/**
 * The one transport factory of a broker: every transport it makes feeds connectivity, waits out an
 * offline network for reads (writes fail at once), and sends the app's extra headers.
 */
export function createTransports(options: TransportsOptions): Transports {
  const { config, clock, connectivity, userSession, adminSession, superSecretAdminKey } = options;
  const observer = connectivityObserver(connectivity, options.observer);
  /** Reads wait out an outage; writes fail at once (they are not retried on network errors anyway). */
  const beforeAttempt = async ({ method }: { method: string }, signal: AbortSignal | undefined) => {
    if (!connectivity.isOffline) return;
    if (method === 'GET') return connectivity.waitUntilOnline(signal);
    const { browserOnline, diagnostics } = connectivity.snapshot();
    // The device being offline and the service not answering are different troubles, with different fixes.
    if (browserOnline === false)
      throw new NetworkError('NETWORK_OFFLINE', 'You are offline: this change was not sent.', diagnostics, 0);
    throw new NetworkError(
      'NETWORK_UNREACHABLE',
      `This change was not sent: ${serviceUnreachableMessage(config.baseUrl, diagnostics)}`,
      diagnostics,
      0,
    );
  };
  // One broker's requests take turns to go out, fairly between its tabs (requests/scheduler.ts).
  const scheduler = new RequestScheduler();
  const waitForTurn = (onBehalfOf: unknown, signal: AbortSignal | undefined) =>
    scheduler.turn(onBehalfOf as OnBehalfOf, signal);
  const make = <A extends AccessType>(accessType: A, projectId: string, credentials: Partial<TransportOptions<A>>) =>
    createTransport<A>({
      baseUrl: config.baseUrl,
      projectId,
      accessType,
      fetch: options.fetch,
      clock,
      observer,
      beforeAttempt,
      waitForTurn,
      waitBeforeRetry: retryWaitFor(connectivity, clock),
      extraRequestHeaders: config.extraRequestHeaders,
      navigatorOnline: () => connectivity.snapshot().browserOnline,
      ...credentials,
    });

  const requireAdminSession = () => {
    if (adminSession === null) {
      throw new ClientError('NOT_SIGNED_IN', 'Admin calls need internalPublishableClientKey.');
    }
    return adminSession;
  };
  const client = make('client', config.projectId, {
    publishableClientKey: config.publishableClientKey,
    userTokens: userSession,
  });
  // Admin transports hold the credentials they were made with; a new admin sign-in makes new ones.
  const adminTransports = new Map<string, { sessionKey: string | null; transport: Transport<'admin'> }>();

  return {
    client,
    internal: () =>
      make('client', 'internal', {
        publishableClientKey: config.internalPublishableClientKey,
        userTokens: requireAdminSession(),
      }),
    internalSignIn: () => make('client', 'internal', { publishableClientKey: config.internalPublishableClientKey }),
    admin(projectId = config.projectId) {
      const sessionKey = adminSession?.sessionKey ?? null;
      if (superSecretAdminKey === undefined && requireAdminSession().sessionKey === null) {
        throw new ClientError('NOT_SIGNED_IN', 'Sign in as a project owner first (adminSignInWithPassword).');
      }
      const cached = adminTransports.get(projectId);
      if (cached && cached.sessionKey === sessionKey) return cached.transport;
      const transport =
        superSecretAdminKey !== undefined && sessionKey === null
          ? make('admin', projectId, { superSecretAdminKey })
          : make('admin', projectId, { adminTokens: requireAdminSession() });
      adminTransports.set(projectId, { sessionKey, transport });
      return transport;
    },
    withAccessToken: (token) => client.withUserTokens(staticTokenSource(token)),
    tokenEndpoint: (slot) => tokenEndpointOptions(options, slot),
  };
}

function connectivityObserver(connectivity: Connectivity, also: TransportObserver | undefined): TransportObserver {
  return {
    onResponse: (event) => {
      connectivity.recordResponse(event.status);
      also?.onResponse?.(event);
    },
    onNetworkError: (event) => {
      connectivity.recordNetworkFailure(event.error);
      also?.onNetworkError?.(event);
    },
    onRetry: (event) => also?.onRetry?.(event),
  };
}

/** The token endpoint of a slot's project, through the same connectivity bookkeeping as every call. */
export function tokenEndpointOptions(
  options: Pick<TransportsOptions, 'config' | 'fetch' | 'clock' | 'connectivity' | 'observer'>,
  slot: 'user' | 'admin',
): TokenEndpointOptions {
  const { config, connectivity } = options;
  return {
    baseUrl: config.baseUrl,
    projectId: slot === 'user' ? config.projectId : 'internal',
    publishableClientKey: slot === 'user' ? config.publishableClientKey : (config.internalPublishableClientKey ?? ''),
    fetch: options.fetch,
    clock: options.clock,
    observer: connectivityObserver(connectivity, options.observer),
    beforeAttempt: (signal) => connectivity.waitUntilOnline(signal),
    waitBeforeRetry: retryWaitFor(connectivity, options.clock),
    navigatorOnline: () => connectivity.snapshot().browserOnline,
  };
}

/**
 * After a network failure, the backoff ends as soon as the service is reachable again; other waits run their course.
 */
function retryWaitFor(connectivity: Connectivity, clock: Clock): WaitBeforeRetry {
  const sleep = sleepOn(clock);
  return (wait, signal) =>
    wait.reason === 'network' ? connectivity.backoff(wait.delayMillis, signal) : sleep(wait, signal);
}
