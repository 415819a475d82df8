import { knownErrorWithTemplate } from '../../protocol/errors/create.js';
import type { KnownError } from '../../protocol/errors/knownError.js';

/**
 * Which web pages may call the API with server or admin access.
 *
 * The emulator's demo project has fixed, published keys (its secret server key and super secret
 * admin key are constants of the package, in its banner and docs), and its admin user's password is
 * just as public. The service answers every origin, and so does the emulator's client API; but if
 * the emulator also took server or admin access from any page, every website open in the
 * developer's browser could list the users, mint a session for any of them or change the project.
 * So a request that asks for server or admin access (`x-stack-access-type`, whatever proves it: a
 * key, an admin access token, the development override key) is refused when it carries an `Origin`
 * other than the emulator's own and the origins it was started with (`--allow-origin`,
 * `allowOrigins`: the demo's `http://localhost:5173` by default, the list the dev endpoints use).
 *
 * Requests without an `Origin` are served as before: Node, scripts, tests and the official SDK on a
 * server send none, and a browser sends one on every request a page makes with these headers (they
 * need CORS). The refusal comes before the keys are checked, so a page cannot even learn whether a
 * key it guessed is right; it carries the API's CORS headers so the page's developer reads why.
 */

type Headers = Readonly<Record<string, string | undefined>>;

/** The access types a page may not use unless its origin is allowed. */
const GUARDED = new Set(['server', 'admin']);

/**
 * Throws INSUFFICIENT_ACCESS_TYPE (401, allowed: client) for server or admin access asked by a page of an origin that
 * is neither the emulator's own (`http://<Host>`) nor in `allowedOrigins`.
 */
export function refuseServerAccessFromPages(headers: Headers, allowedOrigins: readonly string[]): void {
  const refusal = serverAccessRefusal(headers, allowedOrigins);
  if (refusal !== null) throw refusal;
}

/** The refusal `refuseServerAccessFromPages` throws, or null when the request may go on. */
export function serverAccessRefusal(
  headers: Headers,
  allowedOrigins: readonly string[],
): KnownError<'INSUFFICIENT_ACCESS_TYPE'> | null {
  const accessType = headers['x-stack-access-type'];
  const origin = headers.origin;
  if (accessType === undefined || !GUARDED.has(accessType) || origin === undefined) return null;
  if (headers.host !== undefined && origin === `http://${headers.host}`) return null;
  if (allowedOrigins.includes(origin)) return null;
  const allowed = allowedOrigins.length === 0 ? 'none' : allowedOrigins.join(', ');
  return knownErrorWithTemplate(
    'INSUFFICIENT_ACCESS_TYPE',
    `The emulator does not take ${accessType} access from pages of ${origin}. Its demo keys are public, so server and admin access is served to code that sends no Origin (your server, scripts, tests) and to pages of the origins the emulator was started with (now: ${allowed}). Keep secret keys out of browser code; to let pages of ${origin} use admin access (e.g. your own admin screens), start the emulator with --allow-origin ${origin} (startEmulator: allowOrigins). The client API, with the publishable key, answers every origin.`,
    { actual_access_type: accessType, allowed_access_types: ['client'] },
  );
}
