/**
 * The broker's diagnostics as one module: the request log, attribution and the `diagnostics` live
 * value. The broker loads it when a tab first asks for that query (worker/recording.ts), so a
 * broker nobody inspects never downloads it; a service worker, which cannot import() once
 * installed, gets it with its script.
 */
import type { RequestCause } from '../../contract/diagnostics.js';
import type { Watchable } from '../../contract/events.js';
import type { BrokerDiagnostics } from '../../contract/queries.js';
import type { Clock } from '../../protocol/clock.js';
import type { TransportObserver } from '../../protocol/transport.js';
import type { ApiContext, ApiTransports } from '../api/context.js';
import type { FetchCause } from '../cache/cacheEntry.js';
import {
  contextFor,
  fetchContextFor,
  type AttributedFetchContext,
  recordedTransports,
  type AttributableCacheWriter,
} from './attribution.js';
import { createDiagnostics, type DiagnosticsSources } from './collect.js';
import type { RecorderKit } from './kit.js';
import { refreshRecords, type RefreshCall } from './refreshLog.js';
import { RequestLog, Trace } from './requestLog.js';

export interface RecorderSources extends Omit<DiagnosticsSources, 'log' | 'now'> {
  clock: Clock;
  /** The broker's transports as they are, before any recording. */
  transports: ApiTransports;
  /** The cache as actions write it. */
  queries: AttributableCacheWriter;
  isSignedIn(): boolean;
}

export interface Recorder {
  readonly log: RequestLog;
  /** The `diagnostics` query's value; its first watcher turns recording on for the broker's life. */
  readonly diagnostics: Watchable<BrokerDiagnostics>;
  /** A cause for the work `cause` starts; undefined while not recording. */
  trace(cause: RequestCause): FetchCause | undefined;
  /** A session slot's token requests: its `onRefreshCall`, and its token endpoint's observer. */
  readonly refreshes: Record<'user' | 'admin', { onRefreshCall(call: RefreshCall): void; observer: TransportObserver }>;
  /** The broker's transports, each request recorded as its own work (`name`) while recording. */
  brokerWork(name: string): ApiTransports;
  /** What an action's API modules get: everything it does attributed to `cause` (one of `trace`'s). */
  actionContext(context: ApiContext, cause: FetchCause): ApiContext | undefined;
  /** What a cache fetch gets when it has a cause: its requests are that cause's. */
  fetchContext(cause: FetchCause | undefined): AttributedFetchContext | undefined;
}

export function createRecorder(sources: RecorderSources, kit: RecorderKit): Recorder {
  const log = new RequestLog(sources.clock, kit);
  const recording = { log, createTransport: kit.createTransport };
  const { transports, queries, isSignedIn } = sources;
  return {
    log,
    diagnostics: createDiagnostics({ ...sources, now: () => sources.clock.now(), log }, kit),
    trace: (cause) => log.trace(cause),
    refreshes: {
      user: refreshRecords(log, sources.clock, 'token refresh'),
      admin: refreshRecords(log, sources.clock, 'owner token refresh'),
    },
    brokerWork: (name) => recordedTransports(transports, recording, undefined, { tab: null, via: 'broker', name }),
    actionContext: (context, cause) =>
      cause instanceof Trace ? contextFor(context, { transports, queries, recording }, cause) : undefined,
    fetchContext: (cause) => fetchContextFor(cause, { transports, recording, isSignedIn }),
  };
}

/** How a host hands the recorder to its brokers: a dynamic import where the host allows one. */
export type LoadRecorder = () => Promise<{ createRecorder: typeof createRecorder }>;
