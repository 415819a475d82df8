import type { BrokerApi, OAuthResult, SignInResult } from '../contract/api.js';
import { actionNames } from '../contract/actions.js';
import type { ActionName } from '../contract/methods.js';
import type { DataOf, QuerySpec } from '../contract/queries.js';
import type { QuerySnapshot } from '../contract/snapshot.js';
import type { BrokerMode } from '../contract/state.js';
import { ClientError } from '../protocol/errors/errors.js';
import { KnownError } from '../protocol/errors/knownError.js';
import { AUTHBROKER_VERSION } from '../protocol/version.js';
import { openBroker, type BrokerChannel } from './channels.js';
import { handlerPaths, handlerUrls, type HandlerPaths, type HandlerUrls } from './handlerUrls.js';
import { answeredWithin, BROKER_CONFIRM_MILLIS, holdTabLock, newTabId, whenBrokerGone } from './lifetime.js';
import type { OAuthSignInOptions } from './oauth.js';
import { checkConnectOptions, warnIfEveryTabAlone, type ConnectOptions } from './options.js';
import { passkeysAvailable, passkeysUnavailable } from './passkeySupport.js';
import { PersistedSnapshots } from './persisted.js';
import { QueryStore } from './store.js';
import { checkRedirectTarget, safeRedirectTarget } from './redirects.js';
import { normalizeBaseUrl } from '../protocol/credentials.js';

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
  getSnapshot(query: QuerySpec): QuerySnapshot | undefined;
  /** Starts loading a query now (for a second or so) so that a component about to show it finds it sooner. */
  prefetch(query: QuerySpec): void;
  /** Resolves with the first settled snapshot of a query (Suspense). */
  settled(query: QuerySpec): Promise<QuerySnapshot>;
  /** Whether this browser can use passkeys (WebAuthn); without, the passkey methods fail with PASSKEYS_UNAVAILABLE. */
  readonly passkeysAvailable: boolean;
  registerPasskey(): Promise<void>;
  signInWithPasskey(): Promise<SignInResult>;
  signInWithOAuth(providerId: string, options?: OAuthSignInOptions): Promise<void>;
  linkOAuthAccount(providerId: string, scopes?: string[]): Promise<void>;
  /** On the OAuth callback page: finishes the sign-in, cleans the address bar and moves on. */
  handleOAuthCallback(options?: { navigate?: boolean }): Promise<OAuthResult>;
  /** Releases this tab's subscriptions and connection. */
  close(): void;
}

function forwardBrowserState(api: BrokerApi): () => void {
  if (typeof window === 'undefined') return () => undefined;
  const report = (state: { online?: boolean; visible?: boolean }) => void api.reportBrowserState(state).catch(() => undefined);
  const online = () => report({ online: true });
  const offline = () => report({ online: false });
  const visibility = () => report({ visible: document.visibilityState === 'visible' });
  const leave = (event: PageTransitionEvent) => {
    if (!event.persisted) void api.goodbye().catch(() => undefined);
  };
  window.addEventListener('online', online);
  window.addEventListener('offline', offline);
  document.addEventListener('visibilitychange', visibility);
  window.addEventListener('pagehide', leave);
  report({ online: navigator.onLine, visible: document.visibilityState === 'visible' });
  return () => {
    window.removeEventListener('online', online);
    window.removeEventListener('offline', offline);
    document.removeEventListener('visibilitychange', visibility);
    window.removeEventListener('pagehide', leave);
  };
}

/**
 * Creates the tab's client. Nothing happens until it is first used (so importing and creating it
 * is safe during server rendering); then it starts or joins the broker.
 */
export function createBrokerClient(options: ConnectOptions): BrokerClient {
  checkConnectOptions(options);
  warnIfEveryTabAlone(options);
  const paths = handlerPaths(options.handlerPaths);
  const origin = typeof location === 'undefined' ? null : location.origin;
  const urls = origin === null ? (Object.fromEntries(Object.keys(paths).map((k) => [k, ''])) as HandlerUrls) : handlerUrls(paths, origin);
  let channel: BrokerChannel | null = null;
  let connecting: Promise<BrokerApi> | null = null;
  let stopForwarding: () => void = () => undefined;
  /** Bumped by close(), so that a connection arriving after it is closed rather than used. */
  let closes = 0;
  const store = new QueryStore(
    () => api(),
    () => connecting,
    new PersistedSnapshots(`authbroker:snapshot:${options.projectId}@${normalizeBaseUrl(options.baseUrl)}`, options.persistSnapshot ?? options.tokenStore !== 'memory'),
  );

  async function open(): Promise<BrokerApi> {
    if (typeof window === 'undefined' && typeof document === 'undefined' && options.mode !== 'in-process') {
      throw new ClientError('BROKER_UNAVAILABLE', 'The broker runs in the browser; during server rendering there is nothing to connect to.');
    }
    const generation = closes;
    const tabId = newTabId();
    // The lock is taken while the connection is made (taking it can cost a new tab tens of ms);
    // the broker is told its name once it is held, since a free lock would mean "this tab is gone".
    // A fresh lock, taken after another page took this one, is named to the broker at once. No
    // answer means the broker let this tab go meanwhile (it asked while the tab was busy): connect again.
    let tabLock: string | undefined;
    const lifetimeLock = holdTabLock(tabId, (renewed) => {
      tabLock = renewed;
      const current = channel;
      if (current === null) return;
      void answeredWithin(current.api.watchLifetime(renewed), BROKER_CONFIRM_MILLIS).then((answer) => {
        if (answer === undefined) current.markLost?.();
      });
    });
    const hello = { tabId, version: AUTHBROKER_VERSION, ...(origin === null ? {} : { handlerUrls: { emailVerification: urls.emailVerification, passwordReset: urls.passwordReset, magicLinkCallback: urls.magicLinkCallback, teamInvitation: urls.teamInvitation } }) };
    const listener = { deliver: (batch: Parameters<QueryStore['deliver']>[0]) => store.deliver(batch) };
    const opened = await openBroker(options, hello, listener);
    if (generation !== closes) {
      // close() came while this connection was being made: nobody holds it, so it would leak.
      void opened.api.goodbye().catch(() => undefined);
      opened.close();
      throw new ClientError('BROKER_CLOSED', 'The client was closed while it was connecting.');
    }
    channel = opened;
    void opened.lost?.then(() => {
      if (channel !== opened) return;
      // The host went away under us (a new service worker took over): the next broker has the
      // session in IndexedDB; connect to it and subscribe again to what is on screen.
      disconnect();
      void api().catch(() => undefined);
    });
    // Each side watches the other's lifetime lock: the broker learns when this tab is gone, the tab
    // when the broker's worker is (killed, crashed), which nothing else would tell it.
    void lifetimeLock
      .then(async (lockName) => {
        tabLock ??= lockName;
        const brokerLock = tabLock === undefined ? null : await opened.api.watchLifetime(tabLock);
        if (brokerLock === null) return;
        await whenBrokerGone(brokerLock, () => opened.api.watchLifetime(tabLock!));
        opened.markLost?.();
      })
      .catch(() => undefined);
    stopForwarding = forwardBrowserState(opened.api);
    // Used again after a close(): what is still watched subscribes to the new broker.
    queueMicrotask(() => store.resubscribeAll());
    return opened.api;
  }

  function disconnect(): void {
    stopForwarding();
    stopForwarding = () => undefined;
    channel?.close();
    channel = null;
    connecting = null;
    store.disconnected();
  }

  // The checks are passed in: see RedirectChecks in oauth.ts.
  const oauth = async () => (await import('./oauth.js')).oauthMethods(api, urls, options.allowedRedirectOrigins, { checkRedirectTarget, safeRedirectTarget });

  function api(): Promise<BrokerApi> {
    connecting ??= open().catch((error: unknown) => {
      connecting = null;
      throw error;
    });
    return connecting;
  }

  const client = {
    get mode() {
      return channel?.mode ?? null;
    },
    paths,
    urls,
    navigate: (to: string) => (options.navigate ? options.navigate(to) : location.assign(to)),
    connect: async () => {
      await api();
      return client;
    },
    subscribe: (query: QuerySpec, listener: () => void) => store.subscribe(query, listener),
    getSnapshot: (query: QuerySpec) => store.getSnapshot(query),
    prefetch: (query: QuerySpec) => store.prefetch(query),
    settled: (query: QuerySpec) => store.settled(query),
    read: async <Q extends QuerySpec>(query: Q): Promise<DataOf<Q>> => (await api()).read(query),
    get passkeysAvailable() {
      return passkeysAvailable();
    },
    async registerPasskey() {
      if (!passkeysAvailable()) throw passkeysUnavailable();
      const { registerPasskey } = await import('./passkeys.js');
      return registerPasskey(await api(), KnownError);
    },
    async signInWithPasskey() {
      if (!passkeysAvailable()) throw passkeysUnavailable();
      const { signInWithPasskey } = await import('./passkeys.js');
      return signInWithPasskey(await api(), KnownError);
    },
    // OAuth's browser steps load when first used (most pages never start or finish a flow).
    signInWithOAuth: async (providerId: string, oauthOptions?: OAuthSignInOptions) => (await oauth()).signInWithOAuth(providerId, oauthOptions),
    linkOAuthAccount: async (providerId: string, scopes?: string[]) => (await oauth()).linkOAuthAccount(providerId, scopes),
    handleOAuthCallback: async (callbackOptions?: { navigate?: boolean }) => (await oauth()).handleOAuthCallback(callbackOptions),
    close() {
      closes += 1;
      void channel?.api.goodbye().catch(() => undefined);
      disconnect();
    },
  };
  // Each action waits for the broker, then calls it: the contract's list, typed by BrokerActions.
  const actions: Record<string, unknown> = {};
  for (const name of actionNames) {
    if (name in client) continue;
    actions[name] = async (...args: unknown[]) => ((await api())[name] as (...a: unknown[]) => Promise<unknown>)(...args);
  }
  return Object.assign(client, actions) as unknown as BrokerClient;
}

/** Creates the client and waits for its broker. */
export async function connectBroker(options: ConnectOptions): Promise<BrokerClient> {
  // async: bad options reject like any other failure to connect, rather than throwing synchronously.
  return createBrokerClient(options).connect();
}
