import {
  checkProjectId,
  checkPublishableClientKey,
  normalizeBaseUrl,
  refuseProtocolHeaders,
  refuseSecretsInBrowserOptions,
} from '../protocol/credentials.js';
import type { TokenStore } from '../contract/brokerKey.js';
import { InvalidArgumentError } from '../protocol/errors/errors.js';
import { assertTokenMargin, DEFAULT_TOKEN_MARGIN_MILLIS } from '../protocol/validation.js';
import type { AppRequestOptions } from '../contract/appRequests.js';
import { appRequestsText, resolveAppRequests, type ResolvedAppRequests } from './appRequests/appRequestOptions.js';

/** What a broker serves: one project of one service. Plain data, so tabs can send it over RPC. */
export interface BrokerConfig {
  baseUrl: string;
  projectId: string;
  publishableClientKey: string;
  /** The `internal` project's publishable key: lets project owners sign in for admin calls. */
  internalPublishableClientKey?: string | undefined;
  /** Renew access tokens this long before they expire (< 60000 ms). Default 20000. */
  tokenMarginMillis?: number | undefined;
  /** Sent with every API call after the standard headers. */
  extraRequestHeaders?: Record<string, string> | undefined;
  /** Refetch what tabs watch when a tab comes back into view or the network returns. Default true. */
  refetchOnReturn?: boolean | undefined;
  /** Where the refresh token lives (see TokenStore). Default 'indexeddb'. */
  tokenStore?: TokenStore | undefined;
  /**
   * While a shown tab watches connectivity (a banner, the devtools), the service is confirmed this often (ms) unless
   * it answered something meanwhile: one `GET /api/v1`. 0: never (checks then happen only when a request fails or a
   * tab connects or comes into view). Default 4000.
   */
  connectivityCheckMillis?: number | undefined;
  /** Where `client.fetch` may send the user's token, in which header, and who attaches it (contract/appRequests.ts). */
  appRequests?: AppRequestOptions | undefined;
  /** Writes made while offline or the service is unreachable wait in IndexedDB and are sent once back. Default false. */
  offlineWrites?: boolean | undefined;
}

export interface ResolvedBrokerConfig extends BrokerConfig {
  tokenMarginMillis: number;
  refetchOnReturn: boolean;
  tokenStore: TokenStore;
  connectivityCheckMillis: number;
  appRequests: ResolvedAppRequests;
  offlineWrites: boolean;
}

/** How often a watched, shown broker confirms the service by default: a stopped service is seen within about this. */
export const DEFAULT_CONNECTIVITY_CHECK_MILLIS = 4000;
/** Confirming more often than this would load the service for little: a shorter interval is refused. */
export const MIN_CONNECTIVITY_CHECK_MILLIS = 1000;

function isRecordOfStrings(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === 'string')
  );
}

/** Checks a config from an untrusted caller field by field; returns a clean copy. */
export function resolveBrokerConfig(value: unknown): ResolvedBrokerConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InvalidArgumentError('config', 'The broker config must be an object.');
  const c = value as Record<string, unknown>;
  const known = new Set([
    'baseUrl',
    'projectId',
    'publishableClientKey',
    'internalPublishableClientKey',
    'tokenMarginMillis',
    'extraRequestHeaders',
    'refetchOnReturn',
    'tokenStore',
    'connectivityCheckMillis',
    'appRequests',
    'offlineWrites',
  ]);
  for (const key of Object.keys(c)) {
    if (!known.has(key)) {
      const hint =
        key === 'secretServerKey' || key === 'superSecretAdminKey' ? ' Secret keys belong on your server.' : '';
      throw new InvalidArgumentError(`config.${key}`, `Unknown broker option "${key}".${hint}`);
    }
  }
  refuseSecretsInBrowserOptions(c, 'config.');
  if (typeof c.baseUrl !== 'string' || !/^https?:\/\//.test(c.baseUrl))
    throw new InvalidArgumentError('config.baseUrl', 'baseUrl must be an http(s) URL.');
  try {
    new URL(c.baseUrl);
  } catch {
    throw new InvalidArgumentError('config.baseUrl', `baseUrl is not a valid URL: ${JSON.stringify(c.baseUrl)}.`);
  }
  // The tab checked these already; a tab of another deploy, or a page that is not the app, may not have.
  checkProjectId(c.projectId, 'config.projectId');
  checkPublishableClientKey(c.publishableClientKey, 'config.publishableClientKey');
  if (c.internalPublishableClientKey !== undefined)
    checkPublishableClientKey(c.internalPublishableClientKey, 'config.internalPublishableClientKey');
  const margin = c.tokenMarginMillis ?? DEFAULT_TOKEN_MARGIN_MILLIS;
  assertTokenMargin(margin, 'config.tokenMarginMillis');
  if (c.extraRequestHeaders !== undefined && !isRecordOfStrings(c.extraRequestHeaders)) {
    throw new InvalidArgumentError('config.extraRequestHeaders', 'extraRequestHeaders must be strings.');
  }
  refuseProtocolHeaders(c.extraRequestHeaders as Record<string, string> | undefined, 'config.');
  if (c.refetchOnReturn !== undefined && typeof c.refetchOnReturn !== 'boolean') {
    throw new InvalidArgumentError('config.refetchOnReturn', 'refetchOnReturn must be true or false.');
  }
  if (c.tokenStore !== undefined && c.tokenStore !== 'indexeddb' && c.tokenStore !== 'memory') {
    throw new InvalidArgumentError('config.tokenStore', "tokenStore must be 'indexeddb' or 'memory'.");
  }
  if (c.offlineWrites !== undefined && typeof c.offlineWrites !== 'boolean')
    throw new InvalidArgumentError('config.offlineWrites', 'offlineWrites must be true or false.');
  const tokenStore = (c.tokenStore as TokenStore | undefined) ?? 'indexeddb';
  const ownOrigin = (globalThis as { location?: { origin?: string } }).location?.origin ?? null;
  const checkMillis = c.connectivityCheckMillis ?? DEFAULT_CONNECTIVITY_CHECK_MILLIS;
  if (
    typeof checkMillis !== 'number' ||
    !Number.isInteger(checkMillis) ||
    (checkMillis !== 0 && (checkMillis < MIN_CONNECTIVITY_CHECK_MILLIS || checkMillis > 3_600_000))
  ) {
    throw new InvalidArgumentError(
      'config.connectivityCheckMillis',
      `connectivityCheckMillis must be 0 (never) or a whole number of milliseconds from ${MIN_CONNECTIVITY_CHECK_MILLIS} to 3600000.`,
    );
  }
  return {
    baseUrl: normalizeBaseUrl(c.baseUrl),
    projectId: c.projectId,
    publishableClientKey: c.publishableClientKey,
    ...(c.internalPublishableClientKey === undefined
      ? {}
      : { internalPublishableClientKey: c.internalPublishableClientKey as string }),
    tokenMarginMillis: margin,
    refetchOnReturn: c.refetchOnReturn ?? true,
    tokenStore,
    connectivityCheckMillis: checkMillis,
    appRequests: resolveAppRequests(c.appRequests, ownOrigin === 'null' ? null : ownOrigin, tokenStore),
    offlineWrites: c.offlineWrites === true,
    ...(c.extraRequestHeaders === undefined
      ? {}
      : { extraRequestHeaders: { ...(c.extraRequestHeaders as Record<string, string>) } }),
  };
}

/** The options a broker is started with, in the order a refusal names the first that differs. */
const CONFIG_FIELDS = [
  'baseUrl',
  'projectId',
  'tokenStore',
  'publishableClientKey',
  'internalPublishableClientKey',
  'tokenMarginMillis',
  'refetchOnReturn',
  'connectivityCheckMillis',
  'extraRequestHeaders',
  'appRequests',
  'offlineWrites',
] as const;

/**
 * An option as a refusal shows it: a key by its start (publishable keys are no secret, but no message prints a key
 * whole), headers by their names.
 */
function shown(field: (typeof CONFIG_FIELDS)[number], value: unknown): string {
  if (value === undefined) return 'none';
  if (field === 'extraRequestHeaders') return Object.keys(value as object).join(', ') || 'none';
  if (field === 'appRequests') return appRequestsText(value as ResolvedAppRequests);
  return field.endsWith('Key') ? `${String(value).slice(0, 8)}…` : String(value);
}

/** The extra headers as one comparable text: names are case-insensitive, order does not matter. */
const headersText = (headers: Record<string, string> | undefined) =>
  JSON.stringify(
    Object.entries(headers ?? {})
      .map(([name, value]) => [name.toLowerCase(), value])
      .sort(),
  );

/**
 * Why a tab's config cannot be served by a broker started with another one, naming the first field
 * that differs (null when they are the same). One broker serves every tab of a project, service and
 * token store, with the options it was started with: a tab with other options would silently get
 * those (a page that connected first with `extraRequestHeaders: {'x-stack-access-type': 'server'}`
 * once made every sign-in of the app fail). Keys are shown by their start, headers by name only.
 */
export function configMismatch(broker: ResolvedBrokerConfig, tab: ResolvedBrokerConfig): InvalidArgumentError | null {
  for (const field of CONFIG_FIELDS) {
    const same =
      field === 'extraRequestHeaders'
        ? headersText(broker[field]) === headersText(tab[field])
        : field === 'appRequests'
          ? appRequestsText(broker[field]) === appRequestsText(tab[field])
          : broker[field] === tab[field];
    if (!same)
      return new InvalidArgumentError(
        `config.${field}`,
        `This tab's ${field} (${shown(field, tab[field])}) is not the running broker's (${shown(field, broker[field])}): pass the same options in every tab.`,
      );
  }
  return null;
}

export { brokerKeyOf } from '../contract/brokerKey.js';
