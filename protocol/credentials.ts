import { isUuid } from './args.js';
import { ClientError, InvalidArgumentError } from './errors/errors.js';

/** The service's key prefixes: publishable client keys may be public; the other two never. */
export const PUBLISHABLE_KEY_PREFIX = 'pck_';
/** Shorter than "pck_" and one character cannot be a key. */
const MIN_KEY_LENGTH = 5;
/**
 * The headers that say who calls (`buildHeaders`: the project, the access type, the keys, the
 * tokens), in both families (`x-hexclave-*` since @stackframe/js 2.8.108): what the app's extra
 * headers may never replace (the two secret-key ones are refused in browsers as secrets). Others of
 * the families stay the app's to send (the development backend's
 * `x-stack-disable-artificial-development-delay`, for one, or a client version of its own).
 */
export const PROTOCOL_HEADER =
  /^x-(stack|hexclave)-(project-id|access-type|(admin-)?access-token|refresh-token|(publishable-client|secret-server|super-secret-admin)-key)$/i;

/** A secret server key (`ssk_`) or super secret admin key (`sak_`), spaces around it or not. */
function isSecretKey(value: unknown): boolean {
  // trimStart() drops what \s matches, with no regular expression to compile at its first use (see normalizeBaseUrl).
  const key = typeof value === 'string' ? value.trimStart() : '';
  return key.startsWith('ssk_') || key.startsWith('sak_');
}

function unsafe(what: string): ClientError {
  return new ClientError(
    'UNSAFE_CREDENTIALS',
    `${what} is a secret key (ssk_/sak_): anyone could read it in a browser. Keep it on your server.`,
  );
}

/**
 * Refuses, before anything is sent, a secret key where browser code takes keys: a secret pasted as
 * `publishableClientKey` (or as an admin app's `adminAccessToken`), or a secret key or secret-key
 * header (of either family) among `extraRequestHeaders`. The message names the option, never the value.
 */
export function refuseSecretsInBrowserOptions(
  options: {
    publishableClientKey?: unknown;
    internalPublishableClientKey?: unknown;
    adminAccessToken?: unknown;
    extraRequestHeaders?: unknown;
  },
  prefix: string,
): void {
  for (const key of ['publishableClientKey', 'internalPublishableClientKey', 'adminAccessToken'] as const) {
    if (isSecretKey(options[key])) throw unsafe(`${prefix}${key}`);
  }
  const headers = options.extraRequestHeaders;
  if (typeof headers === 'object' && headers !== null) {
    for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
      if (/^x-(stack|hexclave)-(secret-server|super-secret-admin)-key$/i.test(name) || isSecretKey(value))
        throw unsafe(`${prefix}extraRequestHeaders["${name}"]`);
    }
  }
}

/**
 * Refuses an extra header that would replace one the protocol sets (`PROTOCOL_HEADER`), naming it:
 * the broker, for every tab's config (so a tab learns it when it connects, before anything is sent;
 * the tab's own entry leaves it to the broker to stay small), and the server apps.
 */
export function refuseProtocolHeaders(headers: Record<string, string> | undefined, prefix: string): void {
  for (const name of Object.keys(headers ?? {})) {
    const option = `${prefix}extraRequestHeaders["${name}"]`;
    if (PROTOCOL_HEADER.test(name))
      throw new InvalidArgumentError(option, `${option}: the client sets this header itself.`);
  }
}

/** On a server: a publishable key given where a secret one belongs is a mix-up worth stopping at once. */
export function refusePublishableAsSecret(value: unknown, option: string): void {
  if (typeof value === 'string' && value.trim().startsWith(PUBLISHABLE_KEY_PREFIX)) {
    throw new ClientError(
      'UNSAFE_CREDENTIALS',
      `${option} is a publishable client key (pck_…): a server needs the secret server key (ssk_…) or the super secret admin key (sak_…) from the project's API keys.`,
    );
  }
}

/**
 * The service's base URL without trailing slashes (`https://api.stack-auth.com`), also when given
 * with the `/api/v1` the emulator prints as its API URL (stripped).
 */
export function normalizeBaseUrl(baseUrl: string): string {
  // One expression, not a replace per step: V8 compiles each at its first use (about 0.1 ms), before a page's first
  // frame.
  return baseUrl.replace(/\/*(\/api\/v1)?\/*$/i, '');
}

/** What keys are made of: printable ASCII without spaces, the only text every runtime can put in a header. */
const KEY_TEXT = /^[\x21-\x7e]+$/;
/** How much of a wrong project id a message repeats (it is not a secret, but may be long). */
const SHOWN_LENGTH = 60;

function shown(value: unknown): string {
  if (typeof value !== 'string') return value === null ? 'null' : typeof value;
  return JSON.stringify(value.length > SHOWN_LENGTH ? `${value.slice(0, SHOWN_LENGTH)}…` : value);
}

/**
 * A project id is the service's UUID, or `internal` (the service's own project). Anything else (a
 * placeholder such as `…` kept from an example, a name) would only fail later, at the first request,
 * with an error that names neither the option nor the fix.
 */
export function checkProjectId(value: unknown, option: string): asserts value is string {
  if (value === 'internal' || isUuid(value)) return;
  throw new InvalidArgumentError(
    option,
    `${option} must be your project's id: a UUID (see its settings) or "internal", got ${shown(value)}.`,
  );
}

/**
 * A publishable client key is printable ASCII: a placeholder (`pck_…`) or a key copied with a stray
 * character would otherwise surface as a `Headers` error at the first sign-in. The keys the service
 * makes start with `pck_`, but a self-hosted service's own `internal` project has fixed keys of any
 * form (`this-publishable-client-key-is-for-local-development-only` in development), so the prefix
 * is not required; the bare prefix and keys too short to be one are refused. The message never
 * repeats the value.
 */
export function checkPublishableClientKey(value: unknown, option: string): asserts value is string {
  const wrong = () =>
    new InvalidArgumentError(
      option,
      `${option} must be the project's publishable client key: "pck_" followed by letters and digits.`,
    );
  if (typeof value !== 'string') throw wrong();
  if (!KEY_TEXT.test(value)) {
    throw new InvalidArgumentError(
      option,
      `${option} must be printable ASCII: a placeholder such as "pck_…" left in, or extra characters copied?`,
    );
  }
  if (value.length < MIN_KEY_LENGTH || value === PUBLISHABLE_KEY_PREFIX) throw wrong();
}

/** Secret keys go in headers too: printable ASCII, or they could never be sent. The message never repeats the value. */
export function checkKeyText(value: string, option: string): void {
  if (!KEY_TEXT.test(value)) {
    throw new InvalidArgumentError(
      option,
      `${option} must be printable ASCII: a placeholder left in, or extra characters copied?`,
    );
  }
}
