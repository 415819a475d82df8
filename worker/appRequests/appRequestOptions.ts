/**
 * The `appRequests` option as the broker takes it from a tab (any page of the origin may connect, with anything): the
 * origins the user's token may go to, the header it goes in, and whether the service worker attaches it itself. Checked
 * field by field; a clean copy is kept, and every tab must pass the same (config.ts compares `appRequestsText`).
 */
import type { AppRequestOptions } from '../../contract/appRequests.js';
import { InvalidArgumentError } from '../../protocol/errors/errors.js';

export interface ResolvedAppRequests {
  /** Origins (`https://host[:port]`) the token may be sent to, sorted. */
  origins: string[];
  /** Lower case. */
  tokenHeader: string;
  attachInServiceWorker: boolean;
}

/** Headers that must never carry the token: the browser's own, and the service's protocol headers. */
const REFUSED_HEADERS = /^(cookie|host|origin|referer|content-.*|x-stack-(?!auth$|access-token$).*|x-hexclave-.*)$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]{1,100}$/;
const MAX_ORIGINS = 20;
/** contract/appRequests.ts's DEFAULT_TOKEN_HEADER, written here so that the broker's own chunk does not load it. */
const DEFAULT_TOKEN_HEADER = 'authorization';

const refuse = (field: string, message: string) =>
  new InvalidArgumentError(`config.appRequests.${field}`, `appRequests.${field} ${message}`);

/** An origin as `new URL(origin).origin` writes it, or null for anything else (a path, a wildcard, another scheme). */
function asOrigin(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 300) return null;
  try {
    const url = new URL(value);
    const origin = url.origin;
    return (url.protocol === 'https:' || url.protocol === 'http:') && value.replace(/\/$/, '') === origin
      ? origin
      : null;
  } catch {
    return null;
  }
}

/**
 * The option checked, with its defaults: the origin of the page (`ownOrigin`, the worker's own origin, which is the
 * pages') when none is given. Tokens kept in storage could be read by any script of the origin, so the service worker
 * attaching them is offered only with `tokenStore: 'memory'`.
 */
export function resolveAppRequests(value: unknown, ownOrigin: string | null, tokenStore: string): ResolvedAppRequests {
  if (value === undefined)
    return {
      origins: ownOrigin === null ? [] : [ownOrigin],
      tokenHeader: DEFAULT_TOKEN_HEADER,
      attachInServiceWorker: false,
    };
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InvalidArgumentError('config.appRequests', 'appRequests must be an object.');
  const raw = value as Record<string, unknown>;
  for (const key of Object.keys(raw))
    if (key !== 'origins' && key !== 'tokenHeader' && key !== 'attachInServiceWorker')
      throw new InvalidArgumentError(`config.appRequests.${key}`, `Unknown appRequests option "${key}".`);
  let origins = ownOrigin === null ? [] : [ownOrigin];
  if (raw.origins !== undefined) {
    if (!Array.isArray(raw.origins) || raw.origins.length > MAX_ORIGINS)
      throw refuse('origins', `must be a list of at most ${MAX_ORIGINS} origins.`);
    origins = raw.origins.map((entry) => {
      const origin = asOrigin(entry);
      if (origin === null)
        throw refuse(
          'origins',
          `must hold origins such as https://api.example.com, got ${JSON.stringify(entry)?.slice(0, 100)}.`,
        );
      return origin;
    });
  }
  const tokenHeader = raw.tokenHeader === undefined ? DEFAULT_TOKEN_HEADER : raw.tokenHeader;
  if (
    typeof tokenHeader !== 'string' ||
    !HEADER_NAME.test(tokenHeader.toLowerCase()) ||
    REFUSED_HEADERS.test(tokenHeader.toLowerCase())
  )
    throw refuse('tokenHeader', "must be 'authorization', 'x-stack-auth' or a header name of your own.");
  if (raw.attachInServiceWorker !== undefined && typeof raw.attachInServiceWorker !== 'boolean')
    throw refuse('attachInServiceWorker', 'must be true or false.');
  const attachInServiceWorker = raw.attachInServiceWorker === true;
  if (attachInServiceWorker && tokenStore !== 'memory')
    throw refuse(
      'attachInServiceWorker',
      "needs tokenStore: 'memory': a token kept in IndexedDB could be read by any script of the page.",
    );
  return { origins: [...new Set(origins)].sort(), tokenHeader: tokenHeader.toLowerCase(), attachInServiceWorker };
}

/** The option as one comparable text (two tabs with the same origins in another order pass the same). */
export function appRequestsText(resolved: ResolvedAppRequests | undefined): string {
  return JSON.stringify(resolved ?? null);
}

export type { AppRequestOptions };
