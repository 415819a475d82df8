/**
 * Waiting on connectivity: reads held while the service cannot be reached, and a retry's backoff cut short once it
 * can be reached again after an outage.
 */
import type { ConnectivitySnapshot } from '../../contract/state.js';
import type { Clock } from '../../protocol/clock.js';

/** What the waits read of the connectivity state. */
export interface WatchedConnectivity {
  snapshot(): ConnectivitySnapshot;
  subscribe(listener: (snapshot: ConnectivitySnapshot) => void): () => void;
  readonly closed: boolean;
  /** Called once when the state closes (the broker stops): nothing waits on it any more. */
  onClose(listener: () => void): () => void;
}

/** Resolves when requests may go: at once unless offline (or closed). */
export function waitUntilOnline(connectivity: WatchedConnectivity, signal?: AbortSignal): Promise<void> {
  if (connectivity.snapshot().state !== 'offline' || connectivity.closed) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const finish = () => {
      unsubscribe();
      unsubscribeClose();
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      finish();
      reject(signal?.reason);
    };
    const unsubscribe = connectivity.subscribe((snapshot) => {
      if (snapshot.state === 'offline') return;
      finish();
      resolve();
    });
    const unsubscribeClose = connectivity.onClose(() => {
      finish();
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Waits out a retry's backoff, or less: after an outage (the broker went offline during the wait),
 * a request need not sleep on once the service is reachable again (a tab heard `online`, a probe
 * got through). That puts fresh data on screen within moments of the network's return. A single
 * dropped connection, with the service never found unreachable, waits its whole backoff.
 */
export function backoff(
  connectivity: WatchedConnectivity,
  clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>,
  millis: number,
  signal?: AbortSignal,
): Promise<void> {
  if (connectivity.closed) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const finish = () => {
      clock.clearTimeout(timer);
      unsubscribe();
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      finish();
      reject(signal?.reason);
    };
    if (signal?.aborted) return reject(signal.reason);
    const timer = clock.setTimeout(() => {
      finish();
      resolve();
    }, millis);
    let outage = connectivity.snapshot().state === 'offline';
    const unsubscribe = connectivity.subscribe((snapshot) => {
      if (snapshot.state === 'offline') outage = true;
      if (snapshot.state !== 'online' || !outage) return;
      finish();
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
