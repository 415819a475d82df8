import { ClientError } from './errors/errors.js';

/** The service's key prefixes: publishable client keys may be public; the other two never. */
export const PUBLISHABLE_KEY_PREFIX = 'pck_';
const SECRET_KEY_PREFIXES = ['ssk_', 'sak_'] as const;
const SECRET_HEADERS = ['x-stack-secret-server-key', 'x-stack-super-secret-admin-key'] as const;

function isSecretKey(value: unknown): boolean {
  return typeof value === 'string' && SECRET_KEY_PREFIXES.some((prefix) => value.trim().startsWith(prefix));
}

function unsafe(what: string): ClientError {
  return new ClientError(
    'UNSAFE_CREDENTIALS',
    `${what} is a secret key (ssk_/sak_): anyone could read it in a browser. Keep it on your server; browsers need only the publishable key (pck_).`,
  );
}

/**
 * Refuses, before anything is sent, a secret key where browser code takes keys: a secret pasted as
 * `publishableClientKey` (or as an admin app's `adminAccessToken`), or a secret key or secret-key
 * header among `extraRequestHeaders`. The message names the option, never the value.
 */
export function refuseSecretsInBrowserOptions(
  options: { publishableClientKey?: unknown; internalPublishableClientKey?: unknown; adminAccessToken?: unknown; extraRequestHeaders?: unknown },
  prefix: string,
): void {
  for (const key of ['publishableClientKey', 'internalPublishableClientKey', 'adminAccessToken'] as const) {
    if (isSecretKey(options[key])) throw unsafe(`${prefix}${key}`);
  }
  const headers = options.extraRequestHeaders;
  if (typeof headers === 'object' && headers !== null) {
    for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
      if ((SECRET_HEADERS as readonly string[]).includes(name.toLowerCase())) throw unsafe(`${prefix}extraRequestHeaders["${name}"]`);
      if (isSecretKey(value)) throw unsafe(`${prefix}extraRequestHeaders["${name}"]`);
    }
  }
}

/** On a server: a publishable key given where a secret one belongs is a mix-up worth stopping at once. */
export function refusePublishableAsSecret(value: unknown, option: string): void {
  if (typeof value === 'string' && value.trim().startsWith(PUBLISHABLE_KEY_PREFIX)) {
    throw new ClientError('UNSAFE_CREDENTIALS', `${option} is a publishable client key (pck_…): a server needs the secret server key (ssk_…) or the super secret admin key (sak_…) from the project's API keys.`);
  }
}

/**
 * The service's base URL without trailing slashes (`https://api.stack-auth.com`), also when given
 * with the `/api/v1` the emulator prints as its API URL (stripped).
 */
export function normalizeBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/i, '').replace(/\/+$/, '');
}
