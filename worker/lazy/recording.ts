/**
 * The broker's side of its diagnostics. The recorder (worker/diagnostics/) loads when a tab first
 * asks for the `diagnostics` query; until then nothing is traced, wrapped or kept, and a module
 * worker never downloads it. Where it loads from is the host's (`BrokerHostOptions.recorder`,
 * worker/lazy/parts.ts).
 */
import type { RequestCause } from '../../contract/diagnostics.js';
import { Emitter } from '../../contract/events.js';
import { hashQueryKey } from '../../contract/queryKey.js';
import { serializeError } from '../../protocol/errors/serialize.js';
import { createTransport, type Transport, type TransportObserver } from '../../protocol/transport.js';
import { AUTHBROKER_VERSION } from '../../protocol/version.js';
import type { ApiTransports } from '../api/context.js';
import type { FetchCause } from '../cache/cacheEntry.js';
import { derivedValue } from '../cache/liveValue.js';
import type { RecorderKit } from '../diagnostics/kit.js';
import type { LoadRecorder, Recorder, RecorderSources } from '../diagnostics/recorder.js';
import type { RefreshCall } from '../diagnostics/refreshLog.js';
import { loadOnDemand } from './loadOnDemand.js';

const kit: RecorderKit = {
  Emitter,
  createTransport,
  derivedValue,
  hashQueryKey,
  serializeError,
  version: AUTHBROKER_VERSION,
};

export interface Recording {
  /** The recorder, once loaded. */
  readonly recorder: Recorder | null;
  /** Loads the recorder once (again after a load that failed). */
  load(): Promise<Recorder>;
  /** Whether a load is under way: tab calls wait for it, so that they keep their order. */
  readonly loading: Promise<Recorder> | null;
  /** A cause for the work `cause` starts; undefined while nothing is recorded. */
  trace(cause: RequestCause): FetchCause | undefined;
  /** `base`, each request recorded as the broker's own work (`name`) once the recorder records. */
  brokerWork(base: ApiTransports, name: string): ApiTransports;
  /** A session slot's hooks (`onRefreshCall`, its token endpoint's observer), told to the recorder once loaded. */
  refreshes(slot: 'user' | 'admin'): { onRefreshCall(call: RefreshCall): void; observer: TransportObserver };
}

/** `sources` is read once, when the recorder loads (long after the broker has started). */
export function createRecording(loadRecorder: LoadRecorder, sources: () => RecorderSources): Recording {
  let recorder: Recorder | null = null;
  let loading: Promise<Recorder> | null = null;
  const loaded = loadOnDemand(loadRecorder, 'diagnostics');
  const load = (): Promise<Recorder> => {
    if (recorder !== null) return Promise.resolve(recorder);
    loading ??= loaded()
      .then(({ createRecorder }) => (recorder ??= createRecorder(sources(), kit)))
      .finally(() => (loading = null));
    return loading;
  };
  return {
    get recorder() {
      return recorder;
    },
    get loading() {
      return loading;
    },
    load,
    trace: (cause) => recorder?.trace(cause),
    brokerWork(base, name) {
      let recorded: ApiTransports | undefined;
      return following(base, () => (recorded ??= recorder?.brokerWork(name)));
    },
    refreshes: (slot) => ({
      onRefreshCall: (call) => recorder?.refreshes[slot].onRefreshCall(call),
      observer: {
        onResponse: (event) => recorder?.refreshes[slot].observer.onResponse?.(event),
        onNetworkError: (event) => recorder?.refreshes[slot].observer.onNetworkError?.(event),
        onRetry: (event) => recorder?.refreshes[slot].observer.onRetry?.(event),
      },
    }),
  };
}

/** `base`'s transports, each call made through `recorded()` once it gives one. */
function following(base: ApiTransports, recorded: () => ApiTransports | undefined): ApiTransports {
  const now = () => recorded() ?? base;
  const client: Transport<'client'> = {
    ...base.client,
    request: (request) => now().client.request(request),
    withUserTokens: (tokens) => now().client.withUserTokens(tokens),
  };
  return {
    client,
    internal: () => now().internal(),
    internalSignIn: () => now().internalSignIn(),
    admin: (projectId) => now().admin(projectId),
    withAccessToken: (token) => now().withAccessToken(token),
    tokenEndpoint: (slot) => now().tokenEndpoint(slot),
  };
}
