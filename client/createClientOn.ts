/**
 * The client a tab uses, assembled from its parts: the handler URLs, the kept copy (what a page
 * shows first), the link to the broker with the query store that subscribes through it
 * (`connect/brokerLink.ts`), the passkey ceremonies, and the methods that wait for the broker or
 * for OAuth's module (`clientActions.ts`).
 */
import { actionNames } from '../contract/actions.js';
import { normalizeBaseUrl } from '../protocol/credentials.js';
import { InvalidArgumentError } from '../protocol/errors/errors.js';
import { KnownError } from '../protocol/errors/knownError.js';
import type { BrokerClient, ClientHost, ClientParts } from './brokerClient.js';
import { forwardCalls, OAUTH_STEPS } from './clientActions.js';
import { checkConnectOptions, type ConnectOptions } from './connectOptions.js';
import { handlerPaths, handlerUrls, type HandlerPaths, type HandlerUrls } from './handlerUrls.js';
import { persistedSnapshots } from './kept/keptCopyReader.js';
import { checkRedirectTarget, safeRedirectTarget } from './redirects.js';
import { linkToBroker } from './connect/brokerLink.js';
import { tabErrors } from './connect/tabErrors.js';
import type { PasskeyOptions } from './passkeys/passkeys.js';

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
  const baseUrl = normalizeBaseUrl(options.baseUrl);
  const ownStorage = host?.ownStorage !== false;
  const kept = persistedSnapshots(
    `authbroker:snapshot:${options.projectId}@${baseUrl}`,
    ownStorage && (options.persistSnapshot ?? options.tokenStore !== 'memory'),
    ownStorage,
  );
  const inBrowser = host === null && (typeof window !== 'undefined' || typeof document !== 'undefined');
  const link = linkToBroker(
    options,
    baseUrl,
    () => (origin === null ? null : urls()),
    kept,
    parts.connection,
    inBrowser,
  );
  const { store, api } = link;
  // The checks are passed in: see RedirectChecks in oauth.ts.
  const oauth = async () =>
    (await parts.oauth()).oauthMethods(
      api,
      urls(),
      options.allowedRedirectOrigins,
      { checkRedirectTarget, safeRedirectTarget },
      origin,
    );

  const passkeyErrors = { KnownError, InvalidArgumentError };
  const client = {
    get mode() {
      return link.mode;
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
    // The store's own functions: they use no `this`.
    subscribe: store.subscribe,
    getSnapshot: store.getSnapshot as BrokerClient['getSnapshot'],
    prefetch: store.prefetch,
    settled: store.settled,
    get passkeysAvailable() {
      return parts.passkeysAvailable();
    },
    registerPasskey: async (options?: PasskeyOptions) =>
      (await parts.passkeys()).registerPasskey(await api(), passkeyErrors, options),
    signInWithPasskey: async (options?: PasskeyOptions) =>
      (await parts.passkeys()).signInWithPasskey(await api(), passkeyErrors, options),
    close: link.close,
  };
  forwardCalls(client, actionNames, api);
  forwardCalls(client, OAUTH_STEPS, oauth);
  // `client.fetch`: its chunk loads on the first call (and keeps one `fetch` per client).
  forwardCalls(client, ['fetch'], () => parts.appRequests!().then((m) => m.appFetch(client, api, options, tabErrors)));
  return client as unknown as BrokerClient;
}
