import { ClientError, InvalidArgumentError } from '../protocol/errors/errors.js';
import { checkProjectId, checkPublishableClientKey, refuseSecretsInBrowserOptions } from '../protocol/credentials.js';
import { assertTokenMargin } from '../protocol/tokenRules.js';
import { brokerKeyOf, brokerWorkerName, type TokenStore } from '../contract/brokerKey.js';
import type { HandlerPaths } from './handlerUrls.js';
import type { AppRequestOptions } from '../contract/appRequests.js';

/** Where the broker runs: chosen by what the browser has (`auto`, the default), or forced. */
export type BrokerModeChoice = 'auto' | 'shared-worker' | 'service-worker' | 'in-process';

/**
 * The options of {@link createBrokerClient}: which service and project, where the broker's worker scripts are,
 * and how it behaves.
 */
export interface ConnectOptions {
  /**
   * The service's base URL: `https://api.stack-auth.com`, your self-hosted one, or the emulator's
   * (`http://127.0.0.1:8102`). One ending in `/api/v1` means the same.
   */
  baseUrl: string;
  /** The project's id (a UUID). */
  projectId: string;
  /**
   * The project's publishable client key (`pck_…`). Never a secret key: those are refused with `UNSAFE_CREDENTIALS`.
   */
  publishableClientKey: string;
  /** The `internal` project's publishable key, for project owners' admin sign-in. */
  internalPublishableClientKey?: string;
  /** Renew an access token this long before it expires (default 20000, under 60000). */
  tokenMarginMillis?: number;
  /** Headers added to every request to the service (never ones carrying keys or tokens). */
  extraRequestHeaders?: Record<string, string>;
  /**
   * When a hidden tab comes back into view, or the network comes back, what is on screen refetches
   * (at most once per 5 s for the whole broker). Default true. The first tab to start the broker decides.
   */
  refetchOnReturn?: boolean;
  /**
   * While a shown tab watches connectivity (`useConnectivity`, the devtools), the broker confirms the service this
   * often (ms) unless it answered meanwhile: one `GET /api/v1` per interval for all tabs. 0: never. Default 4000
   * (from 1000 to 3600000). The first tab to start the broker decides; every tab must pass the same.
   */
  connectivityCheckMillis?: number;
  /**
   * How to start the SharedWorker: its same-origin script URL (a prebuilt
   * `authbroker-shared-worker.js` copied to your public folder), or a factory, which is how Vite
   * bundles it: `(name) => new SharedWorker(new URL('authbroker/worker/shared', import.meta.url), { type: 'module',
   *             name })`.
   */
  sharedWorker?: string | URL | ((name: string) => SharedWorker);
  /** The service worker script, for browsers without SharedWorker (registered with workbox-window). */
  serviceWorker?: string | URL;
  /** Force a host; default 'auto' (SharedWorker, then service worker, then in the page). */
  mode?: BrokerModeChoice;
  handlerPaths?: Partial<HandlerPaths>;
  /**
   * Where the handler pages that e-mails link to live (e-mail verification, password reset, magic
   * link, team invitation), when not at this page's origin: an https site of yours the project
   * trusts, e.g. `https://example.com`. A browser extension needs it, since no e-mail link opens
   * its own `chrome-extension://` pages. Default: this page's origin.
   */
  handlerBaseUrl?: string;
  /** How long to wait for a worker to answer before falling back. Default 8000 ms. */
  connectTimeoutMillis?: number;
  /**
   * Origins other than the page's own that the app sends people to after signing in (OAuth's
   * after-callback URL, `after_auth_return_to`). Anything else is refused with UNSAFE_REDIRECT.
   */
  allowedRedirectOrigins?: string[];
  /**
   * How to go to another page of the app (the sign-in page, for `useUser({ or: 'redirect' })`):
   * your router's navigate function, so it stays a client-side navigation. Default: a full page load.
   */
  navigate?: (to: string) => void;
  /**
   * Keep a copy of what tabs show (the user, teams, contact channels, the project; never a token)
   * so that a new tab shows it on its first render, and offline. Default true (false with
   * `tokenStore: 'memory'`, whose session does not outlive the tabs); false also deletes any copy
   * kept so far.
   */
  persistSnapshot?: boolean;
  /**
   * Where the refresh token lives. `'indexeddb'` (default): in the broker's IndexedDB database, so
   * the session survives closing every tab and restarting the browser. `'memory'`: only in the
   * broker's memory, shared by every open tab and never written to storage; when the last tab
   * closes (or the only one reloads) it is gone, and the user signs in again.
   */
  tokenStore?: TokenStore;
  /**
   * Your own API, as `client.fetch` calls it: the origins it may send the user's token to (default: the page's own),
   * the header it goes in (default `Authorization: Bearer`), and whether the service worker attaches it instead, so
   * that the page never holds one (`attachInServiceWorker`). Every tab must pass the same.
   */
  appRequests?: AppRequestOptions;
  /**
   * Writes made while the device is offline or the service unreachable (`updateUser`, contact channels, team changes,
   * and `client.fetch` calls marked `queue`) wait in IndexedDB and are sent, in order, once it answers; every tab sees
   * them (`usePendingChanges()`). Default false: such a write fails at once (NETWORK_OFFLINE, NETWORK_UNREACHABLE).
   * Every tab must pass the same.
   */
  offlineWrites?: boolean;
}

const SECRET_OPTIONS = ['secretServerKey', 'superSecretAdminKey'];

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    // The text itself starts with the scheme and `//` (the parser forgives spaces before it and `http:host`).
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      text.slice(0, 8).toLowerCase().startsWith(`${url.protocol}//`)
    );
  } catch {
    return false;
  }
}

/** An option the app got wrong: the error names it, and the message starts with its name. */
function badOption(name: string, rule: string): InvalidArgumentError {
  return new InvalidArgumentError(`options.${name}`, `options.${name} ${rule}.`);
}

const isPositiveNumber = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value > 0;

/** Refuses, with an explanation, what must never be in a browser; checks the rest. */
export function checkConnectOptions(options: ConnectOptions): void {
  if (typeof options !== 'object' || options === null)
    throw new InvalidArgumentError('options', 'connectBroker needs an options object.');
  for (const key of SECRET_OPTIONS) {
    if (key in options) {
      throw new ClientError(
        'UNSAFE_CREDENTIALS',
        `${key} must never be given to browser code (anyone could read it): use it on your server, with authbroker/server.`,
      );
    }
  }
  refuseSecretsInBrowserOptions(options, 'options.');
  for (const key of ['baseUrl', 'projectId', 'publishableClientKey'] as const) {
    if (typeof options[key] !== 'string' || options[key] === '') throw badOption(key, 'must be a non-empty string');
  }
  // Checked here, where the app passed them, rather than failing later as "no broker could start".
  if (!isHttpUrl(options.baseUrl))
    throw badOption('baseUrl', `must be an http(s) URL, got ${JSON.stringify(options.baseUrl)}`);
  checkProjectId(options.projectId, 'options.projectId');
  checkPublishableClientKey(options.publishableClientKey, 'options.publishableClientKey');
  if (options.internalPublishableClientKey !== undefined)
    checkPublishableClientKey(options.internalPublishableClientKey, 'options.internalPublishableClientKey');
  if (options.connectTimeoutMillis !== undefined && !isPositiveNumber(options.connectTimeoutMillis))
    throw badOption('connectTimeoutMillis', 'must be a positive number of milliseconds');
  if (options.tokenMarginMillis !== undefined)
    assertTokenMargin(options.tokenMarginMillis, 'options.tokenMarginMillis');
  for (const key of ['refetchOnReturn', 'persistSnapshot'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'boolean') throw badOption(key, 'must be true or false');
  }
  if (options.navigate !== undefined && typeof options.navigate !== 'function')
    throw badOption('navigate', 'must be a function');
  const origins = options.allowedRedirectOrigins;
  if (
    origins !== undefined &&
    (!Array.isArray(origins) ||
      !origins.every((o) => typeof o === 'string' && isHttpUrl(o) && new URL(o).origin === o.replace(/\/$/, '')))
  ) {
    throw badOption('allowedRedirectOrigins', 'must be a list of origins, such as https://app.example.com');
  }
  if (
    options.handlerBaseUrl !== undefined &&
    (typeof options.handlerBaseUrl !== 'string' || !isHttpUrl(options.handlerBaseUrl))
  ) {
    throw badOption('handlerBaseUrl', 'must be the http(s) URL of your handler pages');
  }
  if (options.tokenStore !== undefined && options.tokenStore !== 'indexeddb' && options.tokenStore !== 'memory')
    throw badOption('tokenStore', "must be 'indexeddb' or 'memory'");
  if (options.mode !== undefined && !['auto', 'shared-worker', 'service-worker', 'in-process'].includes(options.mode)) {
    throw badOption('mode', 'must be auto, shared-worker, service-worker or in-process');
  }
}

/**
 * The broker's SharedWorker name: one broker per service, project and token store (brokerKeyOf), and a worker of this
 * name serves no other (contract/brokerKey.ts).
 */
export function workerName(options: Pick<ConnectOptions, 'projectId' | 'baseUrl' | 'tokenStore'>): string {
  return brokerWorkerName(brokerKeyOf(options));
}
