import { useCallback, useMemo, useRef, useSyncExternalStore } from 'react';
import { ClientError, type AuthBrokerError } from '../../protocol/errors/errors.js';
import { deserializeError } from '../../protocol/errors/serialize.js';
import type { DataOf, QuerySpec } from '../../contract/queries.js';
import type { QuerySnapshot } from '../../contract/snapshot.js';
import type { BrokerClient } from '../brokerClient.js';
import { isPending, queryKey } from '../queryStore.js';
import { useBrokerClient } from './provider.js';

/** A query's data with how fresh it is, as {@link useQuery} gives it (like TanStack Query's result). */
export interface QueryState<T> {
  /** The value; undefined while loading. */
  data: T | undefined;
  /** The last failure, as the typed error it was in the broker. */
  error: AuthBrokerError | null;
  /** No value yet. */
  isLoading: boolean;
  /** A fetch is under way (a first load or a refresh). */
  isFetching: boolean;
  /**
   * The value is the copy kept from an earlier visit (shown at once, even offline) and the broker
   * has not confirmed it yet.
   */
  isStale: boolean;
  /** When the value was fetched (ms since the epoch), null before there is one. */
  updatedAt: number | null;
}

/** Nothing to unsubscribe from; and the server's snapshot, which has no data (the session lives in the browser). */
export const noop = () => undefined;

/** The raw snapshot of a query, kept in sync with the broker (null spec: nothing to watch). */
export function useQuerySnapshot(spec: QuerySpec | null): QuerySnapshot | undefined {
  const client = useBrokerClient();
  const key = spec === null ? null : queryKey(spec);
  // The key, not the object, decides identity: callers may build a new spec object per render.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const subscribe = useCallback(
    (listener: () => void) => (spec === null ? noop : client.subscribe(spec, listener)),
    [client, key],
  );
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const getSnapshot = useCallback(() => (spec === null ? undefined : client.getSnapshot(spec)), [client, key]);
  const snapshot = useSyncExternalStore(subscribe, getSnapshot, noop);
  // Ask the broker while rendering, not only once React has committed and run effects: on a cold
  // page that saves the whole first render. Idempotent, and it lets go by itself if never committed.
  if (snapshot === undefined && spec !== null && typeof window !== 'undefined') client.prefetch(spec);
  return snapshot;
}

/** A query's data with its loading and error state. */
export function useQuery<Q extends QuerySpec>(spec: Q | null): QueryState<DataOf<Q>> {
  const snapshot = useQuerySnapshot(spec);
  return useMemo(
    () => ({
      data: snapshot?.data as DataOf<Q> | undefined,
      error: snapshot?.error ? deserializeError(snapshot.error) : null,
      isLoading: isPending(snapshot),
      isFetching: snapshot?.isFetching ?? true,
      isStale: snapshot?.isStale === true,
      updatedAt: snapshot?.data === undefined || !snapshot.updatedAtMillis ? null : snapshot.updatedAtMillis,
    }),
    [snapshot],
  );
}

/** One pending promise per client and query, so a suspended component retries the same one. */
const pendingByClient = new WeakMap<BrokerClient, Map<string, Promise<QuerySnapshot>>>();

/** Suspends on the queries still pending (one promise per client and set of queries). */
function suspend(client: BrokerClient, specs: readonly QuerySpec[]): never {
  if (typeof window === 'undefined' && typeof document === 'undefined') {
    // Server rendering: nothing to wait for (the session lives in the browser). A promise would
    // settle at once with the same server snapshot, and a streaming render would retry forever;
    // an error makes React send the fallback and render this boundary in the browser.
    throw new ClientError(
      'BROKER_UNAVAILABLE',
      'Auth data is known only in the browser: this Suspense boundary renders there.',
    );
  }
  let pending = pendingByClient.get(client);
  if (!pending) pendingByClient.set(client, (pending = new Map()));
  const key = specs.map(queryKey).join('|');
  let promise = pending.get(key);
  if (!promise) {
    promise = Promise.all(specs.map((spec) => client.settled(spec)))
      .then((snapshots) => snapshots[0]!)
      .finally(() => pending.delete(key));
    pending.set(key, promise);
  }
  throw promise;
}

function dataOrThrow(snapshot: QuerySnapshot): unknown {
  if (snapshot.status === 'error' && snapshot.data === undefined && snapshot.error)
    throw deserializeError(snapshot.error);
  return snapshot.data;
}

/** The data of a query, suspending until it is known; failures go to the nearest error boundary. */
export function useSuspenseQuery<Q extends QuerySpec>(spec: Q): DataOf<Q> {
  const client = useBrokerClient();
  const snapshot = useQuerySnapshot(spec);
  if (isPending(snapshot)) suspend(client, [spec]);
  return dataOrThrow(snapshot!) as DataOf<Q>;
}

/** The data types of a list of queries, in order ({@link useSuspenseQueries}). */
export type DataOfAll<Q extends readonly QuerySpec[]> = {
  [K in keyof Q]: Q[K] extends QuerySpec ? DataOf<Q[K]> : never;
};

/**
 * Several queries' data, suspending once until all are known. Several `useSuspense…` hooks in one
 * component load one after another (the first suspends before the next runs); this asks for all
 * of them at once.
 */
export function useSuspenseQueries<const Q extends readonly QuerySpec[]>(specs: Q): DataOfAll<Q> {
  const client = useBrokerClient();
  const key = specs.map(queryKey).join('|');
  const last = useRef<Array<QuerySnapshot | undefined>>([]);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const subscribe = useCallback(
    (listener: () => void) => {
      const unsubscribes = specs.map((spec) => client.subscribe(spec, listener));
      return () => unsubscribes.forEach((unsubscribe) => unsubscribe());
    },
    [client, key],
  );
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const getSnapshot = useCallback(() => {
    const next = specs.map((spec) => client.getSnapshot(spec));
    // The same array while every snapshot is the same object, as useSyncExternalStore requires.
    if (next.length !== last.current.length || next.some((snapshot, i) => snapshot !== last.current[i]))
      last.current = next;
    return last.current;
  }, [client, key]);
  const snapshots = useSyncExternalStore(subscribe, getSnapshot, () => EMPTY_SNAPSHOTS);
  if (snapshots.length !== specs.length || snapshots.some(isPending)) suspend(client, specs);
  return snapshots.map((snapshot) => dataOrThrow(snapshot!)) as DataOfAll<Q>;
}

const EMPTY_SNAPSHOTS: Array<QuerySnapshot | undefined> = [];
