/** The agreement between a tab and the broker: the API, its queries, and the values both sides see. */
export type * from './api.js';
export type {
  AppRequest,
  AppRequestOptions,
  AppResponse,
  AppToken,
  PendingChange,
  PendingChangeState,
} from './appRequests.js';
export type { MethodName, MethodRole, ActionName } from './methods.js';
export type {
  QuerySpec,
  QueryKind,
  QueryData,
  DataOf,
  QueryScope,
  BrokerDiagnostics,
  CacheEntryDiagnostics,
} from './queries.js';
export type { QuerySnapshot } from './snapshot.js';
export type * from './state.js';
export type { Watchable } from './events.js';
export type * from './diagnostics.js';
