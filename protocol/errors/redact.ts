import { HttpStatusError } from './errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** JWTs, and long runs of token-like characters (refresh tokens, keys, codes, hashes). */
const SECRET_LIKE = /eyJ[\w-]*\.[\w-]*(?:\.[\w-]*)?|[A-Za-z0-9_\-+/=]{24,}/g;
/**
 * Random strings mix digits and letters (or both cases, when long); words, error codes
 * (`REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED`), header names, ids and API paths do not, or are kept.
 */
function looksSecret(run: string): boolean {
  if (run.startsWith('eyJ')) return true;
  if (UUID.test(run)) return false;
  if (run.startsWith('/') && run.split('/').every((segment) => segment.length < 24)) return false;
  const digits = /\d/.test(run);
  const lower = /[a-z]/.test(run);
  const upper = /[A-Z]/.test(run);
  return (digits && (lower || upper)) || (lower && upper && run.length >= 32);
}
/** How much of a response body an error keeps. */
export const BODY_EXCERPT_LENGTH = 1000;

/**
 * A response body as an error may carry it: whatever could be a credential blanked out, and cut
 * short. A misbehaving proxy or server can echo a request (its tokens) or a success body into an
 * error, and error texts end up in logs, screens and bug reports. UUIDs (ids in the service's
 * messages) are kept.
 */
export function redactBody(text: string, max = BODY_EXCERPT_LENGTH): string {
  const redacted = text.replace(SECRET_LIKE, (match) => (looksSecret(match) ? '[redacted]' : match));
  return redacted.length > max ? `${redacted.slice(0, max)}…` : redacted;
}

/**
 * The `HttpStatusError` of a response, as the broker and the server apps make it: its body redacted
 * and cut (`redactBody`), and its message, unless given, an excerpt of that. Apart from the class,
 * so that a tab, which only rebuilds errors the broker made, never loads the redaction.
 */
export function responseStatusError(
  status: number,
  body: string,
  message?: string,
  retryAfter: string | null = null,
): HttpStatusError {
  const safe = redactBody(body);
  return new HttpStatusError(
    status,
    safe,
    message ?? (safe.trim() === '' ? undefined : `HTTP ${status}: ${redactBody(safe.trim(), 300)}`),
    retryAfter,
  );
}
