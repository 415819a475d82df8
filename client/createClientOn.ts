import type { BrokerApi, OAuthResult, SignInResult } from '../contract/api.js';
import { actionNames } from '../contract/actions.js';
import type { ActionName } from '../contract/methods.js';
import type { DataOf, QuerySpec } from '../contract/queries.js';
import type { QuerySnapshot } from '../contract/snapshot.js';
import type { BrokerMode } from '../contract/state.js';
import { ClientError } from '../protocol/errors/errors.js';
import { KnownError } from '../protocol/errors/knownError.js';
import { normalizeBaseUrl } from '../protocol/credentials.js';
import { afterFirstFrame } from './connect/afterFirstFrame.js';
import type { EarlyWorker } from './connect/brokerChannel.js';
import type { Connection } from './connect/connection.js';
import type { Receiver } from './connect/deliveries.js';
import { handlerPaths, handlerUrls, type HandlerPaths, type HandlerUrls } from './handlerUrls.js';
import type { OAuthFlowOptions, OAuthSignInOptions } from './oauth.js';
import { candidateModes, detectCapabilities } from './connect/mode.js';
import { checkConnectOptions, workerName, type ConnectOptions } from './connectOptions.js';
import { persistedSnapshots } from './kept/keptCopyReader.js';
import { createQueryStore } from './queryStore.js';
import { checkRedirectTarget, safeRedirectTarget } from './redirects.js';
import { tabErrors } from './connect/tabErrors.js';

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
   * WebAuthn.
   */
  registerPasskey(): Promise<void>;
  /** Signs in with a passkey: the browser asks the user to pick one. `PASSKEYS_UNAVAILABLE` without WebAuthn. */
  signInWithPasskey(): Promise<SignInResult>;
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
  /** Releases this tab's subscriptions and connection. */
  close(): void;
}

/** OAuth's browser steps (`oauth.ts`): methods of the client that load their module when first called. */
const OAUTH_STEPS = [
  'signInWithOAuth',
  'linkOAuthAccount',
  'handleOAuthCallback',
  'startOAuthFlow',
  'completeOAuthFlow',
] as const;
type OAuthSteps = ReturnType<OAuthModule['oauthMethods']>;
/** Fails to compile unless the list names every step, each typed in BrokerClient as oauth.ts makes it. */
const everyStepListed: [keyof OAuthSteps] extends [(typeof OAUTH_STEPS)[number]]
  ? OAuthSteps extends Pick<BrokerClient, (typeof OAUTH_STEPS)[number]>
    ? true
    : never
  : never = true;
void everyStepListed;

const closedWhileConnecting = () => new ClientError('BROKER_CLOSED', 'The client was closed while it was connecting.');

/** The connection's module: how a client reaches its broker (`connect/connection.ts` for the page's own hosts). */
export type ConnectionModule = Pick<
  typeof import('./connect/connection.js'),
  'connect' | 'keepSnapshots' | 'receiving'
>;
/** OAuth's browser steps (`oauth.ts`). */
export type OAuthModule = Pick<typeof import('./oauth.js'), 'oauthMethods'>;
/** The passkey ceremonies (`passkeys/passkeys.ts`, with @simplewebauthn/browser). */
export type PasskeyModule = Pick<
  typeof import('./passkeys/passkeys.js'),
  'registerPasskey' | 'signInWithPasskey'
>;

/**
 * What a client loads when first used, given by whoever creates it: the page's client loads each
 * with import() (`pageClient.ts`), so a page downloads none of it before it needs it; an extension's
 * background, a service worker that may not import(), gets its parts from its own script. This
 * module itself has no import(), so nothing that builds on it reaches one.
 */
export interface ClientParts {
  /** How the client reaches its broker. */
  connection(): Promise<ConnectionModule>;
  /** OAuth's browser steps; where this context has none (a content script), a load that fails saying so. */
  oauth(): Promise<OAuthModule>;
  /** Whether passkey ceremonies can run here (WebAuthn, in a context the service takes passkeys from). */
  passkeysAvailable(): boolean;
  /**
   * The passkey ceremonies, refusing with PASSKEYS_UNAVAILABLE, saying why, where they cannot run:
   * before the lazy module, the WebAuthn library or the broker are asked anything.
   */
  passkeys(): Promise<PasskeyModule>;
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

/**
 * The client, on the page's own hosts (`host` null: a SharedWorker, a service worker or the page)
 * or on another one. Everything a page sees of it is the same whatever the host.
 */
export function createClientOn(options: ConnectOptions, host: ClientHost | null, parts: ClientParts): BrokerClient {
  checkConnectOptions(options);
  const origin = host !== null ? host.origin : typeof location === 'undefined' ? null : location.origin;
  // Worked out when first asked for (a page's links, the connection's hello, a redirect, OAuth), not at start.
  let pathsCache: HandlerPaths | null = null;
  const paths = () => (pathsCache ??= handlerPaths(options.handlerPaths));
  let handlerUrlsCache: HandlerUrls | null = null;
  const urls = () =>
    (handlerUrlsCache ??=
      origin === null
        ? (Object.fromEntries(Object.keys(paths()).map((k) => [k, ''])) as HandlerUrls)
        : handlerUrls(paths(), origin, options.handlerBaseUrl));
  let connection: Connection | null = null;
  /** What the broker sends reaches the store through this, once the connection has loaded. */
  let receiver: Receiver | null = null;
  /** The connection under way or open. */
  let connecting: Promise<BrokerApi> | null = null;
  /** A connection subscriptions asked for, waiting for the first frame. */
  let soon: Promise<BrokerApi> | null = null;
  /** Bumped by close(), so that a connection arriving after it is closed rather than used. */
  let closes = 0;
  const baseUrl = normalizeBaseUrl(options.baseUrl);
  const ownStorage = host?.ownStorage !== false;
  const kept = persistedSnapshots(
    `authbroker:snapshot:${options.projectId}@${baseUrl}`,
    ownStorage && (options.persistSnapshot ?? options.tokenStore !== 'memory'),
    ownStorage,
  );
  const store = createQueryStore(
    () => apiSoon(),
    () => connecting,
    kept,
  );

  const inBrowser = host === null && (typeof window !== 'undefined' || typeof document !== 'undefined');
  // Loaded once: a module that failed to load fails again for this page (browsers keep the failure).
  let loading: Promise<ConnectionModule> | null = null;
  const loadConnection = () => (loading ??= parts.connection());
  const name = workerName(options);
  let modes: BrokerMode[] | null = null;
  const hosts = () => (modes ??= candidateModes(detectCapabilities(options), options.mode));
  // Without any kept copy (a first visit) the page has nothing to show until the broker answers: the
  // connection's chunk is fetched now, and the broker's SharedWorker started (its script loads and
  // the broker starts while the page renders; the chunk's own evaluation waits for the first frame).
  let early: EarlyWorker | null = null;
  if (inBrowser && !kept.hasCopy()) {
    void loadConnection().catch(() => undefined);
    const source = options.sharedWorker;
    if (source !== undefined && hosts()[0] === 'shared-worker') {
      try {
        const started = {
          worker: typeof source === 'function' ? source(name) : new SharedWorker(source, { type: 'module', name }),
          failed: false,
        };
        started.worker.addEventListener('error', () => (started.failed = true), { once: true });
        early = started;
      } catch {
        // The connection's first attempt meets the same refusal and says why.
      }
    }
  }

  async function open(): Promise<BrokerApi> {
    const generation = closes;
    const { connect, keepSnapshots, receiving } = await loadConnection();
    if (generation !== closes) throw closedWhileConnecting();
    const to = (receiver ??= receiving(store, keepSnapshots(kept)));
    const target = { options, baseUrl, name, modes: hosts(), errors: tabErrors, again: api, early };
    early = null;
    const opened = await connect(target, origin === null ? null : urls(), to.deliver);
    if (generation !== closes) {
      // close() came while this connection was being made: nobody holds it, so it would leak.
      opened.close(true);
      throw closedWhileConnecting();
    }
    connection = opened;
    void opened.lost.then(() => {
      if (connection !== opened) return;
      // The host went away under us (a new service worker took over, the worker was killed): the
      // next broker has the session in IndexedDB; connect to it and subscribe again to what is on screen.
      disconnect();
      void api().catch(() => undefined);
    });
    // Used again after a close(): what is still watched subscribes to the new broker.
    queueMicrotask(() => to.resubscribeAll());
    return opened.api;
  }

  function disconnect(): void {
    connection?.close();
    connection = null;
    connecting = null;
    receiver?.disconnected();
  }

  // The checks are passed in: see RedirectChecks in oauth.ts.
  const oauth = async () =>
    (await parts.oauth()).oauthMethods(
      api,
      urls(),
      options.allowedRedirectOrigins,
      { checkRedirectTarget, safeRedirectTarget },
      origin,
    );

  function api(): Promise<BrokerApi> {
    connecting ??= open().catch((error: unknown) => {
      connecting = null;
      throw error;
    });
    return connecting;
  }

  /**
   * The connection for a subscription: never started inside the call (a page's first frame waits
   * for nothing), but once the current task's subscriptions are known: after the next frame when
   * they were answered from the kept copy, else at once.
   */
  function apiSoon(): Promise<BrokerApi> {
    if (connecting !== null) return connecting;
    soon ??= new Promise<BrokerApi>((resolve, reject) => {
      const generation = closes;
      const start = () => {
        soon = null;
        if (generation === closes) resolve(api());
        else reject(closedWhileConnecting());
      };
      queueMicrotask(() => (store.showsKeptCopy ? afterFirstFrame(start) : start()));
    });
    return soon;
  }

  const client = {
    get mode() {
      return connection?.mode ?? null;
    },
    get paths() {
      return paths();
    },
    get urls() {
      return urls();
    },
    navigate: (to: string) => (options.navigate ? options.navigate(to) : location.assign(to)),
    connect: async () => {
      await api();
      return client;
    },
    subscribe: (query: QuerySpec, listener: () => void) => store.subscribe(query, listener),
    getSnapshot: <Q extends QuerySpec>(query: Q) => store.getSnapshot(query) as QuerySnapshot<DataOf<Q>> | undefined,
    prefetch: (query: QuerySpec) => store.prefetch(query),
    settled: (query: QuerySpec) => store.settled(query),
    read: async <Q extends QuerySpec>(query: Q): Promise<DataOf<Q>> => (await api()).read(query),
    get passkeysAvailable() {
      return parts.passkeysAvailable();
    },
    registerPasskey: async () => (await parts.passkeys()).registerPasskey(await api(), KnownError),
    signInWithPasskey: async () => (await parts.passkeys()).signInWithPasskey(await api(), KnownError),
    close() {
      closes += 1;
      early?.worker.port.close();
      early = null;
      connection?.close(true);
      connection = null;
      disconnect();
    },
  };
  // Each action waits for the broker, then calls it: the contract's list, typed by BrokerActions.
  // Written onto the client itself: an object of them copied over would cost a copy before the first frame.
  const methods = client as Record<string, unknown>;
  for (const name of actionNames) {
    if (name in client) continue;
    methods[name] = async (...args: unknown[]) =>
      ((await api())[name] as (...a: unknown[]) => Promise<unknown>)(...args);
  }
  // OAuth's browser steps wait for their module, loaded when first used (most pages never start or finish a flow).
  for (const step of OAUTH_STEPS)
    methods[step] = async (...args: unknown[]) =>
      ((await oauth())[step] as (...a: unknown[]) => Promise<unknown>)(...args);
  return client as unknown as BrokerClient;
}
