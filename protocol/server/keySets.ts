import { createRemoteJWKSet, customFetch } from 'jose';
import { messageOf, NetworkError, ProtocolError } from '../errors/errors.js';
import { redactBody, responseStatusError } from '../errors/redact.js';
import { projectJwksUrl } from '../endpoints/misc.js';
import type { UserKind } from './tokenClaims.js';

/**
 * The project's signing keys as a verifier reads them: one key set per kind of user, fetched when
 * a token of that kind is first checked and cached by jose (10 minutes; a token naming a key the
 * set lacks makes one refetch, at most every 30 s).
 *
 * jose remembers successful fetches only. While the key set fails (the service answers 503, the
 * network is down), every token naming an unknown key would ask again: a stream of made-up tokens
 * would be a stream of requests to the service. So a failed fetch is remembered too: for a while
 * the set is not asked again, and every check that needs it fails at once with the same error. The
 * wait starts at {@link FIRST_RETRY_MILLIS} and doubles after each failure in a row, up to
 * {@link MAX_RETRY_MILLIS} (jose's own wait between refetches), so a short outage costs a second
 * and a long one a request every 30 s.
 */

/** How long a failed fetch is remembered at first. */
export const FIRST_RETRY_MILLIS = 1000;
/** The longest a failed fetch is remembered (after several failures in a row). */
export const MAX_RETRY_MILLIS = 30_000;

export interface KeySetOptions {
  baseUrl: string;
  projectId: string;
  fetch: typeof fetch;
  /** Reads the time for the failure memory. */
  now: () => number;
}

export type RemoteKeySet = ReturnType<typeof createRemoteJWKSet>;

/** The key set of each kind of user, made on first use. */
export function projectKeySets(options: KeySetOptions): (kind: UserKind) => RemoteKeySet {
  const sets = new Map<UserKind, RemoteKeySet>();
  return (kind) => {
    let set = sets.get(kind);
    if (set === undefined) {
      const url = projectJwksUrl(options.baseUrl, options.projectId, {
        restricted: kind === 'restricted',
        anonymous: kind === 'anonymous',
      });
      set = createRemoteJWKSet(new URL(url), {
        [customFetch]: rememberingFailures(readKeySet(options.fetch), options.now),
      });
      sets.set(kind, set);
    }
    return set;
  };
}

/**
 * Fetches a key set and reads it: a failure is a NetworkError (unreachable), an HttpStatusError (any answer but 200)
 * or a ProtocolError (not a key set), never the token's fault. jose gets the key set as a fresh 200.
 */
function readKeySet(fetchImpl: typeof fetch): typeof fetch {
  return async (url, init) => {
    let response: Response;
    try {
      response = await fetchImpl(url, init);
    } catch (error) {
      // jose turns its own abort into JWKSTimeout.
      if (error instanceof Error && error.name === 'TimeoutError') throw error;
      throw new NetworkError(
        'NETWORK_UNREACHABLE',
        `Could not fetch the project's signing keys from ${String(url)}: ${messageOf(error)}`,
        null,
        1,
        { cause: error },
      );
    }
    const body = await response.text().catch(() => '');
    if (!response.ok) {
      throw responseStatusError(
        response.status,
        body,
        `The project's signing keys (${String(url)}) answered HTTP ${response.status}${body.trim() === '' ? '' : `: ${redactBody(body.trim(), 200)}`}. Check baseUrl and projectId.`,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = null;
    }
    if (typeof parsed !== 'object' || parsed === null || !Array.isArray((parsed as { keys?: unknown }).keys))
      throw new ProtocolError(
        `The project's signing keys could not be read: ${String(url)} did not answer a JSON key set ({ "keys": [...] }).`,
      );
    return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
  };
}

/** The same fetch, which after a failure answers with that failure, without asking, until its wait is over. */
function rememberingFailures(fetchKeys: typeof fetch, now: () => number): typeof fetch {
  let failure: { error: unknown; retryAt: number; waitMillis: number } | null = null;
  return async (url, init) => {
    if (failure !== null && now() < failure.retryAt) throw failure.error;
    try {
      const response = await fetchKeys(url, init);
      failure = null;
      return response;
    } catch (error) {
      const waitMillis = failure === null ? FIRST_RETRY_MILLIS : Math.min(failure.waitMillis * 2, MAX_RETRY_MILLIS);
      failure = { error, retryAt: now() + waitMillis, waitMillis };
      throw error;
    }
  };
}
