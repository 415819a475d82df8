/**
 * A session's token requests in the request log. The session tells who asks for each refresh (`onRefreshCall`): the
 * first caller's trace starts it, later callers join it. The token endpoint's attempt events (`observer`) open the
 * record on the first attempt, so a refresh that found a token another broker had just renewed sends nothing and
 * logs nothing. One refresh at a time per session is what makes events and refresh line up.
 */
import type { Clock } from '../../protocol/clock.js';
import type { TransportObserver } from '../../protocol/transport.js';
import { Trace, type OpenRequest, type RequestLog } from './requestLog.js';

/** Told by the session at each call of its single-flight refresh (`SessionOptions.onRefreshCall`). */
export interface RefreshCall {
  /** Whoever asked for a token: a Trace when the caller was attributed. */
  caller: unknown;
  /** True when a refresh was already under way and this caller shares it. */
  joined: boolean;
  refresh: Promise<unknown>;
}

export function refreshRecords(
  log: RequestLog,
  clock: Pick<Clock, 'now'>,
  name: string,
): { onRefreshCall(call: RefreshCall): void; observer: TransportObserver } {
  let current: {
    trace: Trace;
    startedAtMillis: number;
    record: OpenRequest | null;
    events: TransportObserver | null;
  } | null = null;
  const opened = (path: string) => {
    if (current === null) return null;
    current.record ??= log.begin('POST', path, current.trace, current.startedAtMillis);
    current.events ??= log.observe(current.record, true);
    return current.events;
  };
  return {
    onRefreshCall: ({ caller, joined, refresh }) => {
      if (joined) return current?.trace.join();
      const trace = caller instanceof Trace ? caller.fork() : log.trace({ tab: null, via: 'broker', name });
      if (trace === undefined || !log.recording) return;
      const mine = { trace, startedAtMillis: clock.now(), record: null, events: null };
      current = mine;
      const done = (failure?: { error: unknown }) => {
        if (mine.record !== null) log.finish(mine.record, failure);
        if (current === mine) current = null;
      };
      refresh.then(
        () => done(),
        (error: unknown) => done({ error }),
      );
    },
    observer: {
      onResponse: (event) => opened(event.path)?.onResponse?.(event),
      onNetworkError: (event) => opened(event.path)?.onNetworkError?.(event),
      onRetry: (event) => opened(event.path)?.onRetry?.(event),
    },
  };
}
