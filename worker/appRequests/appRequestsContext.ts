/**
 * What the broker's methods for the app's own requests are given (worker/api/context.ts's `appRequests`): the app's
 * options, the session as app requests use it, and the writes that wait out an outage.
 */
import type { AppRequest, AppResponse } from '../../contract/appRequests.js';
import type { AppSession } from './appTokens.js';
import type { ResolvedAppRequests } from './appRequestOptions.js';

/** The writes kept while offline (worker/writes/offlineWrites.ts), as the methods reach them. */
export interface AppRequestWrites {
  sendAppRequest(request: AppRequest): Promise<AppResponse>;
  dismiss(id: string): Promise<void>;
}

export interface AppRequestsContext {
  readonly config: ResolvedAppRequests;
  /** Renew an access token this long before it expires (what the tab may reuse it until). */
  readonly marginMillis: number;
  readonly session: AppSession;
  readonly writes: AppRequestWrites;
}
