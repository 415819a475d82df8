import { AsyncLocalStorage } from 'node:async_hooks';
import { HttpStatusError, NetworkError } from '../../protocol/errors/errors.js';
import { isKnownErrorCode } from '../../protocol/errors/catalogue.js';
import { KnownError } from '../../protocol/errors/knownError.js';
import { codeBelongsTo } from '../../protocol/errors/lineage.js';
import {
  IDEMPOTENT_METHODS,
  MAX_RETRY_AFTER_MILLIS,
  parseRetryAfter,
  TRANSIENT_SERVER_STATUSES,
} from '../../protocol/retry.js';
import { MAX_TOKEN_RENEWALS_PER_CALL } from '../../protocol/transport.js';

/** One attempt the broker's `fetch` made at an API call. */
export interface Attempt {
  /** The logical call it belongs to (see `taggingFetch`). */
  call: number;
  method: string;
  /** After `/api/v1`, with the query. */
  path: string;
  body: string;
  /** The real status (after `x-stack-actual-status`), or `network` when fetch rejected. */
  outcome: number | 'network';
  knownError: string | null;
  retryAfter: string | null;
  startedAt: number;
  endedAt: number;
}

/** The attempts of one logical call, in order. */
export interface Chain {
  key: string;
  method: string;
  path: string;
  body: string;
  attempts: Attempt[];
}

const callContext = new AsyncLocalStorage<number>();

/**
 * A `fetch` for the broker that records each API attempt and names the logical call it belongs to.
 * The transport's retry loop runs in one async context: the first attempt of a call finds no
 * name there and stores a new one (`enterWith` on the loop's own continuation), so its retries
 * find the same name, while calls started elsewhere (another tab, a cache refetch) get their own.
 * A refresh started from inside a retry inherits the name; it is told apart by its method and path.
 *
 * The token endpoint is the exception: oauth4webapi calls `fetch` below its own awaits, so the
 * name stored there does not reach the retry loop above it (`withTokenRetries`), and each of its
 * attempts gets a new name. `chains` therefore groups token requests by body alone: the broker
 * makes one refresh at a time (single flight under a Web Lock), so they never overlap.
 */
export function taggingFetch(): { fetch: typeof fetch; attempts: Attempt[] } {
  let next = 1;
  const attempts: Attempt[] = [];
  const tagged: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!/^\/api\/v1\/./.test(url.pathname)) return fetch(input, init);
    let call = callContext.getStore();
    if (call === undefined) {
      call = next++;
      callContext.enterWith(call);
    }
    const method = (init?.method ?? 'GET').toUpperCase();
    const raw = init?.body;
    const body = typeof raw === 'string' ? raw : raw instanceof URLSearchParams ? raw.toString() : '';
    const base = {
      call,
      method,
      path: `${url.pathname.replace(/^\/api\/v1/, '')}${url.search}`,
      body,
      startedAt: performance.now(),
    };
    try {
      const response = await fetch(input, init);
      const actual = response.headers.get('x-stack-actual-status');
      attempts.push({
        ...base,
        outcome: actual === null ? response.status : Number(actual),
        knownError: response.headers.get('x-stack-known-error'),
        retryAfter: response.headers.get('retry-after'),
        endedAt: performance.now(),
      });
      return response;
    } catch (error) {
      attempts.push({ ...base, outcome: 'network', knownError: null, retryAfter: null, endedAt: performance.now() });
      throw error;
    }
  };
  return { fetch: tagged, attempts };
}

export const TOKEN_PATH = '/auth/oauth/token';

/**
 * Whether the retry policy (PROTOCOL.md §9.1, plus transient 5xx of idempotent calls) allows another
 * attempt after this one: 429 (unless Retry-After is over a minute), 508, a network failure or a
 * 500/502/503/504 of an idempotent method or of the token endpoint, and up to two renewals in a row
 * after INVALID_ACCESS_TOKEN answers (any other outcome starts the count again).
 */
export function retriable(attempt: Attempt, renewalsInARow: number): boolean {
  const idempotent = IDEMPOTENT_METHODS.has(attempt.method) || attempt.path.startsWith(TOKEN_PATH);
  if (attempt.outcome === 'network') return idempotent;
  if (attempt.knownError !== null) {
    return (
      renewalsInARow < MAX_TOKEN_RENEWALS_PER_CALL &&
      isKnownErrorCode(attempt.knownError) &&
      codeBelongsTo(attempt.knownError, 'INVALID_ACCESS_TOKEN')
    );
  }
  if (attempt.outcome === 429 || (idempotent && TRANSIENT_SERVER_STATUSES.has(attempt.outcome))) {
    return (parseRetryAfter(attempt.retryAfter, Date.now()) ?? 0) <= MAX_RETRY_AFTER_MILLIS;
  }
  return attempt.outcome === 508;
}

/**
 * Groups attempts into calls: same name, method, path and body, split after an attempt the
 * policy would not retry (so two calls of one context in a row stay apart). A call is never
 * split for being long: a sixth attempt stays in its call and shows up as one, except at the
 * token endpoint, whose attempts carry no name: there a call also ends at its fifth attempt
 * (else the next refresh would join a refresh that gave up), so a sixth attempt would not show.
 */
export function chains(attempts: Attempt[]): Chain[] {
  const all: Chain[] = [];
  const open = new Map<string, { chain: Chain; renewals: number }>();
  for (const attempt of [...attempts].sort((a, b) => a.startedAt - b.startedAt)) {
    const token = attempt.path.startsWith(TOKEN_PATH);
    const key = `${token ? 'token' : attempt.call}|${attempt.method} ${attempt.path}|${attempt.body}`;
    let entry = open.get(key);
    if (!entry) {
      entry = {
        chain: { key, method: attempt.method, path: attempt.path, body: attempt.body, attempts: [] },
        renewals: 0,
      };
      all.push(entry.chain);
      open.set(key, entry);
    }
    entry.chain.attempts.push(attempt);
    const again = retriable(attempt, entry.renewals);
    if (attempt.knownError === null) entry.renewals = 0;
    else if (again) entry.renewals++;
    if (!again || (token && entry.chain.attempts.length === 5)) open.delete(key);
  }
  return all;
}

export function lastOf(chain: Chain): Attempt {
  return chain.attempts[chain.attempts.length - 1]!;
}

/** How a call ended, in the same words as `errorSignature`: `ok`, `http-500`, `network-5`, `known-CODE`. */
export function chainSignature(chain: Chain): string {
  const last = lastOf(chain);
  if (last.outcome === 'network') return `network-${chain.attempts.length}`;
  if (last.knownError !== null) return `known-${last.knownError}`;
  return last.outcome < 400 ? 'ok' : `http-${last.outcome}`;
}

/** Whether the call stopped where the policy says: on an answer it does not retry, or after five attempts. */
export function endedByPolicy(chain: Chain): boolean {
  if (chain.attempts.length === 5) return true;
  const before = chain.attempts.slice(0, -1);
  const lastOther = before.findLastIndex((attempt) => attempt.knownError === null);
  return !retriable(lastOf(chain), before.length - 1 - lastOther);
}

/** An error as the tab received it, in a word; `untyped-…` for anything but our error classes. */
export function errorSignature(error: unknown): string {
  if (error instanceof HttpStatusError) return `http-${error.status}`;
  if (error instanceof NetworkError) return error.code === 'NETWORK_OFFLINE' ? 'offline' : `network-${error.attempts}`;
  if (error instanceof KnownError) return `known-${error.code}`;
  const name = (error as { name?: unknown } | null)?.name;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? `${String(name)}-${code}` : `untyped-${String(name)}`;
}
