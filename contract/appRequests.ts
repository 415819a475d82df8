/**
 * The app's own requests through the broker (issue 43): what the tab and the broker agree on for `client.fetch` (the
 * token for the app's own API, in the header the app names, only to the origins it allows) and for writes that wait
 * out an outage (the pending changes every tab sees).
 */
import { AUTH_HEADER, authHeadersFor } from '../protocol/authHeaders.js';
import type { SerializedError } from '../protocol/errors/errors.js';

/**
 * How `client.fetch` reaches the app's own API (the `appRequests` option of `createBrokerClient`; every tab passes the
 * same).
 */
export interface AppRequestOptions {
  /**
   * The origins `client.fetch` sends the user's access token to, such as `https://api.example.com`. Default: the page's
   * own origin only. A request to any other origin is refused (ORIGIN_NOT_ALLOWED) before anything is sent.
   */
  origins?: string[];
  /**
   * Which header carries the token: `'authorization'` (the default: `Authorization: Bearer <token>`), `'x-stack-auth'`
   * (the official SDK's `getAuthHeaders()` form, which `authbroker/server`'s `verifyRequest` and the SDK's server
   * read), or the name of another header, which then carries the bare token.
   */
  tokenHeader?: string;
  /**
   * The service worker attaches the token to the page's own `fetch` calls to `origins`: the page, and any script in it,
   * never receives an access token (`getAccessToken`, `getAuthHeaders` refuse with TOKEN_WITHHELD). Needs `mode:
   * 'service-worker'`, `tokenStore: 'memory'` and the service-worker script with app requests
   * (`authbroker/worker/service-app-entry`). See the threat model for what it protects and what it cannot.
   */
  attachInServiceWorker?: boolean;
}

/** The default `tokenHeader`. */
export const DEFAULT_TOKEN_HEADER = 'authorization';

/** The header (name, value) that carries `token` in the form `tokenHeader` names. */
export function appTokenHeader(tokenHeader: string, token: string): [string, string] {
  if (tokenHeader === DEFAULT_TOKEN_HEADER) return [tokenHeader, `Bearer ${token}`];
  if (tokenHeader === AUTH_HEADER) return [AUTH_HEADER, authHeadersFor(token)[AUTH_HEADER]];
  return [tokenHeader, token];
}

/** What {@link BrokerApi.appToken} answers: the token to send, and how long the tab may keep using it. */
export interface AppToken {
  /** Null when nobody is signed in. */
  accessToken: string | null;
  /**
   * Until when (ms since the epoch, this device's clock) the tab may send it again without asking: when the broker
   * would renew it. Null: ask again next time.
   */
  reuseUntilMillis: number | null;
}

/** A `client.fetch` call marked queueable, as the tab hands it to the broker, which sends it now or later. */
export interface AppRequest {
  /** An absolute URL of an allowed origin. */
  url: string;
  method: string;
  /** The call's own headers (never the token's: the broker attaches it when it sends). */
  headers: Array<[string, string]>;
  /** The whole body (a queued call must be sent again as it was), at most 1 MB. */
  body: Uint8Array | null;
  /** Sent as `Idempotency-Key`, so that the app's server applies a write once even when it arrives twice. */
  idempotencyKey: string;
  /** What `usePendingChanges()` calls it (default: the method and the path). */
  label?: string;
  /** Refuse (NOT_SIGNED_IN) rather than send it without a token when nobody is signed in. */
  requireUser?: boolean;
}

/** The answer to a queued call, read whole by the broker (a queued call's answer may come when no tab waits for it). */
export interface AppResponse {
  status: number;
  statusText: string;
  headers: Array<[string, string]>;
  body: Uint8Array;
  /** True when it was kept and sent later, once the service answered again. */
  queued: boolean;
}

/** Where a pending change is: waiting for the service, being sent, refused by it, or dropped without being sent. */
export type PendingChangeState = 'waiting' | 'sending' | 'refused' | 'dropped';

/**
 * One write that waits out an outage, as every tab sees it (`usePendingChanges()`): what, since when, and where it is.
 * Refused and dropped ones stay in the list, with why, until the app dismisses them (`dismissPendingChange`) or a
 * day has passed.
 */
export interface PendingChange {
  /** Its id (random; what `dismissPendingChange` takes). */
  id: string;
  /** A broker action (`updateUser`…) or a `client.fetch` call. */
  kind: 'action' | 'request';
  /** What it is: the action's name, or the call's method and path (or the label the app gave it). */
  label: string;
  /** When it was made (ms since the epoch). */
  createdAtMillis: number;
  state: PendingChangeState;
  /** How many times it was sent (a send the network lost counts). */
  attempts: number;
  /** Why it was refused (the service's or the app's answer) or dropped (WRITE_DROPPED: signed out, another user). */
  error: SerializedError | null;
}
