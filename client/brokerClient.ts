/**
 * The client a tab uses, as every host gives it (`createClientOn`), and what whoever creates one
 * gives it: the parts it loads when first used, and the host it reaches when that is not the page's
 * own choice. Types only.
 */
import type { BrokerApi, OAuthResult, SignInResult } from '../contract/api.js';
import type { ActionName } from '../contract/methods.js';
import type { DataOf, QuerySpec } from '../contract/queries.js';
import type { QuerySnapshot } from '../contract/snapshot.js';
import type { BrokerMode } from '../contract/state.js';
import type { HandlerPaths, HandlerUrls } from './handlerUrls.js';
import type { OAuthFlowOptions, OAuthSignInOptions } from './oauth.js';
import type { PasskeyOptions } from './passkeys/passkeys.js';
import type { AppFetchOptions } from './appRequests/appFetch.js';

/** The broker methods an app calls directly (their role in the contract is `action`). */
export type BrokerActions = Pick<BrokerApi, ActionName>;

export interface BrokerClient extends BrokerActions {
  /** The host in use, once connected (null before). */
  readonly mode: BrokerMode | null;
  /** Connects (if not yet) and resolves when the broker answers. */
  connect(): Promise<BrokerClient>;
  readonly paths: HandlerPaths;
  /** Absolute handler URLs (only in a browser; empty strings during server rendering). */
  readonly urls: HandlerUrls;
  /** Goes to a page of the app: the app's router when `options.navigate` was given, else a page load. */
  navigate(to: string): void;
  /** Watches a query; the snapshot is then available from `getSnapshot`. */
  subscribe(query: QuerySpec, listener: () => void): () => void;
  /** The latest snapshot of a watched query (undefined before the first), its data typed by the query's kind. */
  getSnapshot<Q extends QuerySpec>(query: Q): QuerySnapshot<DataOf<Q>> | undefined;
  /** Starts loading a query now (for a second or so) so that a component about to show it finds it sooner. */
  prefetch(query: QuerySpec): void;
  /** Resolves with the first settled snapshot of a query (Suspense). */
  settled(query: QuerySpec): Promise<QuerySnapshot>;
  /** Whether this browser can use passkeys (WebAuthn); without, the passkey methods fail with PASSKEYS_UNAVAILABLE. */
  readonly passkeysAvailable: boolean;
  /**
   * Registers a passkey for the signed-in user: the browser asks them to create one. `PASSKEYS_UNAVAILABLE` without
   * WebAuthn. `hostname` makes it a passkey of a domain above the page's (`example.com` on `app.example.com`).
   */
  registerPasskey(options?: PasskeyOptions): Promise<void>;
  /**
   * Signs in with a passkey: the browser asks the user to pick one. `PASSKEYS_UNAVAILABLE` without WebAuthn. A passkey
   * registered with `hostname` signs in with the same `hostname`.
   */
  signInWithPasskey(options?: PasskeyOptions): Promise<SignInResult>;
  /**
   * Leaves for the provider's sign-in page (`google`, `github`, …); the provider sends the user back to the
   * OAuth callback page, where {@link BrokerClient.handleOAuthCallback} finishes.
   */
  signInWithOAuth(providerId: string, options?: OAuthSignInOptions): Promise<void>;
  /**
   * Links an account at a provider to the signed-in user (a connected account), asking for `scopes`; the page
   * leaves for the provider and comes back.
   */
  linkOAuthAccount(providerId: string, scopes?: string[]): Promise<void>;
  /** On the OAuth callback page: finishes the sign-in, cleans the address bar and moves on. */
  handleOAuthCallback(options?: { navigate?: boolean }): Promise<OAuthResult>;
  /**
   * Starts an OAuth flow without leaving the page: the provider URL to open (in a window of your
   * own, or `chrome.identity.launchWebAuthFlow`), which sends the browser back to `redirectUri`.
   * The flow's secrets stay in the broker; finish it with `completeOAuthFlow`.
   */
  startOAuthFlow(providerId: string, options: OAuthFlowOptions): Promise<{ url: string }>;
  /**
   * Finishes a flow `startOAuthFlow` started, from the URL the provider sent the browser back to (its code and state).
   */
  completeOAuthFlow(callbackUrl: string): Promise<OAuthResult>;
  /**
   * A `fetch` for your own API, with the user's access token attached (`Authorization: Bearer`, or the header
   * `appRequests.tokenHeader` names), only to your own origins (the page's, and `appRequests.origins`; any other is
   * refused with ORIGIN_NOT_ALLOWED). A 401 renews the token once, for every tab, and sends the request again; streamed
   * bodies and answers and `init.signal` work as with `fetch`. Nobody signed in: sent without a token, or refused with
   * `requireUser`. `queue`: a write that waits out an outage (`offlineWrites`).
   */
  fetch(input: RequestInfo | URL, init?: RequestInit, options?: AppFetchOptions): Promise<Response>;
  /** Releases this tab's subscriptions and connection. */
  close(): void;
}

/** The connection's module: how a client reaches its broker (`connect/connection.ts` for the page's own hosts). */
export type ConnectionModule = Pick<
  typeof import('./connect/connection.js'),
  'connect' | 'keepSnapshots' | 'receiving'
>;
/** OAuth's browser steps (`oauth.ts`). */
export type OAuthModule = Pick<typeof import('./oauth.js'), 'oauthMethods'>;
/** `client.fetch` (`appRequests/appFetch.ts`). */
export type AppRequestsModule = Pick<typeof import('./appRequests/appFetch.js'), 'appFetch'>;
/** The passkey ceremonies (`passkeys/passkeys.ts`, with @simplewebauthn/browser). */
export type PasskeyModule = Pick<typeof import('./passkeys/passkeys.js'), 'registerPasskey' | 'signInWithPasskey'>;

/**
 * What a client loads when first used, given by whoever creates it: the page's client loads each
 * with import() (`pageClient.ts`), so a page downloads none of it before it needs it; an extension's
 * background, a service worker that may not import(), gets its parts from its own script. This
 * module itself has no import(), so nothing that builds on it reaches one.
 */
export interface ClientParts {
  /**
   * How the client reaches its broker. `forced`: the host the app forced (`forcedHost`), which may
   * run where the others cannot (a broker of the page's own runs without a window).
   */
  connection(forced: BrokerMode | null): Promise<ConnectionModule>;
  /** OAuth's browser steps; where this context has none (a content script), a load that fails saying so. */
  oauth(): Promise<OAuthModule>;
  /** Whether passkey ceremonies can run here (WebAuthn, in a context the service takes passkeys from). */
  passkeysAvailable(): boolean;
  /**
   * The passkey ceremonies, refusing with PASSKEYS_UNAVAILABLE, saying why, where they cannot run:
   * before the lazy module, the WebAuthn library or the broker are asked anything.
   */
  passkeys(): Promise<PasskeyModule>;
  /** `client.fetch`'s module (a content script, which has no `client.fetch`, has none). */
  appRequests?(): Promise<AppRequestsModule>;
}

/** How a client reaches a broker that is not the page's own choice (a browser extension's background). */
export interface ClientHost {
  /** The origin of the client's own pages, for redirects and handler URLs; null where there are none. */
  origin: string | null;
  /**
   * False where `localStorage` is not the app's (a content script's is the web page's): no kept copy, and storage never
   * touched.
   */
  ownStorage?: boolean;
}
