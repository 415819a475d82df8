/**
 * The User Timing mark a tab leaves when it reaches its broker: how long the page took to reach it,
 * and how (what devtools and the benchmarks read). Part of the tab's lazy connection.
 */
import type { BrokerMode } from '../../contract/state.js';

/** The User Timing mark a tab leaves when it reaches its broker (its `detail`: `ConnectedMark`). */
export const CONNECTED_MARK = 'authbroker:connected';

/** What the connected mark says: the host reached, the attempts it took, the hosts that failed first. */
export interface ConnectedMark {
  mode: BrokerMode;
  attempts: number;
  fallbacks: number;
}

/** Leaves the mark (`performance.getEntriesByName(CONNECTED_MARK)`), whose start time is when the broker was reached. */
export function markConnected(detail: ConnectedMark): void {
  try {
    globalThis.performance?.mark?.(CONNECTED_MARK, { detail });
  } catch {
    // A page without User Timing (or one that refuses `detail`) simply has no mark.
  }
}
