import { ClientError } from '../protocol/errors/errors.js';
import type { HandlerPage, RedirectClient, RedirectOptions } from './navigation/handlerRedirect.js';

/**
 * A URL's origin, also where `URL.origin` is "null": an extension page's (`chrome-extension://<id>`
 * outside browsers), a WebView app's (`capacitor://localhost`). Scheme and host, as an origin is.
 */
function originOf(url: URL): string {
  return url.origin !== 'null' ? url.origin : `${url.protocol}//${url.host}`;
}

/** Where a redirect after sign-in may go: the app's origin, and the other origins it allows. */
export interface RedirectRules {
  /** The app's origin (`location.origin`). */
  origin: string;
  /** Other origins the app sends people to after sign-in (e.g. `https://app.example.com`). */
  allowedOrigins?: readonly string[] | undefined;
}

/**
 * Where a redirect after sign-in may go: a path of this app, or a URL of this origin or an allowed
 * one (in a browser extension's pages, this origin is the extension's own, `chrome-extension://<id>`). Everything else
 * is refused with `UNSAFE_REDIRECT`: other sites, `javascript:` and `data:`
 * URLs, protocol-relative (`//evil.example`) and backslash forms (`/\evil.example`), and anything
 * with whitespace or control characters, which browsers strip or reinterpret (`/\t/evil.example`
 * becomes `//evil.example`). Returns the absolute URL to go to.
 */
export function checkRedirectTarget(candidate: string, rules: RedirectRules): string {
  const refuse = (why: string): never => {
    throw new ClientError(
      'UNSAFE_REDIRECT',
      `Refused to redirect to ${JSON.stringify(candidate.slice(0, 200))}: ${why}.`,
    );
  };
  if (typeof candidate !== 'string' || candidate === '') refuse('it is empty');
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f\\]/.test(candidate)) refuse('it has whitespace, control characters or a backslash');
  let url: URL;
  try {
    url = new URL(candidate, rules.origin);
  } catch {
    return refuse('it is not a URL');
  }
  // A page whose origin is not http(s) (an extension's) may go to its own origin's other pages: its
  // scheme, with a host (javascript: and data: URLs have none). No other scheme is ever followed.
  const own = new URL(rules.origin);
  const ownScheme = url.protocol === own.protocol && own.host !== '';
  if (url.protocol !== 'http:' && url.protocol !== 'https:' && !ownScheme)
    refuse(`${url.protocol} URLs are never followed`);
  const allowed = [rules.origin, ...(rules.allowedOrigins ?? [])].map((origin) => originOf(new URL(origin)));
  if (!allowed.includes(originOf(url)))
    refuse(`${originOf(url)} is not this app's origin${rules.allowedOrigins?.length ? ' nor an allowed one' : ''}`);
  return url.href;
}

/** The same check, falling back to `fallback` (the app's own default) when the target is refused. */
export function safeRedirectTarget(
  candidate: string | null | undefined,
  rules: RedirectRules,
  fallback: string,
  onRefused?: (error: ClientError) => void,
): string {
  if (candidate === null || candidate === undefined || candidate === '') return fallback;
  try {
    return checkRedirectTarget(candidate, rules);
  } catch (error) {
    if (error instanceof ClientError) onRefused?.(error);
    return fallback;
  }
}

/** The query parameter that carries where to go back to after signing in. */
export const RETURN_TO_PARAM = 'after_auth_return_to';

/**
 * Where to go back to after signing in, read from the page's `after_auth_return_to`: a same-origin
 * path (or an allowed origin's URL), or null when there is none or it is not safe. The path is safe
 * however it is used — `location.assign`, a router's `navigate`, an `<a href>` — even by code that
 * decodes it once: a path that begins with two slashes (`//evil.example`, which dot segments and
 * doubled slashes resolve to) would be read by the browser as another site, so it is refused.
 */
export function readReturnTo(href: string, rules: RedirectRules): string | null {
  const value = new URL(href).searchParams.get(RETURN_TO_PARAM);
  if (value === null || value === '') return null;
  try {
    const target = new URL(checkRedirectTarget(value, rules));
    if (originOf(target) !== originOf(new URL(rules.origin))) return target.href;
    return isSafeLocalPath(target.pathname) ? target.pathname + target.search + target.hash : null;
  } catch {
    return null;
  }
}

/**
 * A path that stays on this origin: one slash, then anything but another slash or a backslash,
 * read as given and once decoded (with the whitespace and control characters browsers drop taken out).
 */
function isSafeLocalPath(pathname: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return false;
  }
  // eslint-disable-next-line no-control-regex
  return [pathname, decoded.replace(/[\u0000-\u0020\u007f]/g, '')].every((path) => /^\/(?![/\\])/.test(path));
}

/**
 * Goes to one of the app's handler pages (`signIn`, `signUp`, `afterSignIn`, `afterSignOut`,
 * `accountSettings`, `emailVerification`, `passwordReset`, `onboarding`, `mfa`…), keeping the way
 * back as the official SDK's `redirectToSignIn()` and the others do: sign-in, sign-up, sign-out and
 * onboarding come back here (or where this page was to go back to); `afterSignIn` goes back there.
 * Loaded when first called.
 */
export async function redirectTo(client: RedirectClient, page: HandlerPage, options?: RedirectOptions): Promise<void> {
  (await import('./navigation/handlerRedirect.js')).goToHandler(
    client,
    page,
    { read: readReturnTo, param: RETURN_TO_PARAM },
    options,
  );
}
