/**
 * How connectivity changes with what the service says, as pure functions of the snapshot: an answer, a request that
 * got none, a check's result. The state machine's rules in one place; connectivity.ts applies them and tells tabs.
 */
import type { ConnectivitySnapshot } from '../../contract/state.js';
import { messageOf, NetworkError, type NetworkDiagnostics } from '../../protocol/errors/errors.js';
import { serializeError } from '../../protocol/errors/serialize.js';
import { serviceUnreachableMessage } from '../../protocol/diagnostics.js';

/** Server errors in a row that make the state degraded. */
export const DEGRADED_AFTER = 2;

type Patch = Partial<ConnectivitySnapshot>;

/** A broker starts online: its start counts as a word from the service, until a request or a check says otherwise. */
export function initialSnapshot(now: number): ConnectivitySnapshot {
  return {
    state: 'online',
    sinceMillis: now,
    browserOnline: null,
    lastError: null,
    lastErrorAtMillis: null,
    lastSuccessAtMillis: null,
    consecutiveFailures: 0,
    diagnostics: null,
  };
}

/** The service answered (any status). 5xx/429 count as trouble, not as being offline; anything else is health. */
export function afterResponse(snap: ConnectivitySnapshot, status: number, now: number): Patch {
  if (status >= 500 || status === 429) {
    const failures = snap.consecutiveFailures + 1;
    return {
      consecutiveFailures: failures,
      lastError: {
        kind: 'http-status',
        code: 'HTTP_STATUS_ERROR',
        message: `The service answered ${status}.`,
        status,
        body: '',
      },
      lastErrorAtMillis: now,
      ...(failures >= DEGRADED_AFTER && snap.state === 'online' ? { state: 'degraded' as const } : {}),
    };
  }
  return { state: 'online', consecutiveFailures: 0, lastSuccessAtMillis: now };
}

/** A request got no answer: degraded until a check says whether the service can be reached at all. */
export function afterNetworkFailure(snap: ConnectivitySnapshot, error: unknown, now: number): Patch {
  return {
    consecutiveFailures: snap.consecutiveFailures + 1,
    lastError: serializeError(
      error instanceof NetworkError ? error : new NetworkError('NETWORK_UNREACHABLE', messageOf(error), null, 1),
    ),
    lastErrorAtMillis: now,
    ...(snap.state === 'online' ? { state: 'degraded' as const } : {}),
  };
}

/** What a check that got no answer from the API means: the device is offline, or the service does not answer. */
function checkFailure(snap: ConnectivitySnapshot, diagnostics: NetworkDiagnostics, baseUrl: string): NetworkError {
  const why = diagnostics.apiRoot.error === null ? '' : ` (${diagnostics.apiRoot.error})`;
  return snap.browserOnline === false
    ? new NetworkError(
        'NETWORK_OFFLINE',
        `You are offline: the service at ${baseUrl} cannot be reached${why}.`,
        diagnostics,
        1,
      )
    : new NetworkError('NETWORK_UNREACHABLE', serviceUnreachableMessage(baseUrl, diagnostics, why), diagnostics, 1);
}

/**
 * A check's result. Reachable: online again after an outage (`wasDown`), else only the time of the last success
 * changes (a broker degraded by server errors stays so until a real call is answered well). Not reachable: the
 * origin answering its health check while the API does not is trouble, not health; neither answering is offline.
 */
export function afterCheck(
  snap: ConnectivitySnapshot,
  diagnostics: NetworkDiagnostics,
  wasDown: boolean,
  now: number,
  baseUrl: string,
): Patch {
  if (!diagnostics.apiRoot.reachable) {
    // One truth: what the banner says and what the error, the count and the devtools say are the same failure.
    const failure = {
      consecutiveFailures: snap.consecutiveFailures + 1,
      lastError: serializeError(checkFailure(snap, diagnostics, baseUrl)),
      lastErrorAtMillis: now,
      diagnostics,
    };
    return { ...failure, state: diagnostics.health.reachable ? 'degraded' : 'offline' };
  }
  if (snap.state === 'online' || (snap.state === 'degraded' && !wasDown)) return { lastSuccessAtMillis: now };
  return { state: 'online', consecutiveFailures: 0, diagnostics, lastSuccessAtMillis: now };
}
