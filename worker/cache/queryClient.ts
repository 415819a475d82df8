import {
  queryDefinition,
  type FetchContext,
  type LiveContext,
  type QueryKind,
  type QueryScope,
  type QuerySpec,
} from '../../contract/queries.js';
import type { Clock } from '../../protocol/clock.js';
import { fetchContextOnBehalfOf } from '../requests/onBehalfOf.js';
import type { Claim } from '../requests/scheduler.js';
import type { CacheEntry, FetchCause } from './cacheEntry.js';
import { LiveValue } from './liveValue.js';
import { FetchedQuery } from './query.js';
import { QueryCache } from './queryCache.js';

/**
 * What brokers of one origin tell each other about their caches: which entries changed (every
 * entry of `kind` for `owner` whose parameters include `params`), never their data. Any page can
 * post on the channel, so what another broker's cache holds is only ever a reason to refetch.
 */
export type CacheMessage = {
  type: 'cache-invalidate';
  owner: string;
  kind: QueryKind;
  params: Record<string, unknown>;
};

export interface QueryClientOptions {
  clock: Clock;
  fetchContext: FetchContext;
  liveContext: LiveContext;
  /** Whose data a scope's queries are right now (the session's key, or the project's). */
  ownerOf(scope: QueryScope): string;
  /** The signed-in user's id now (user-scope snapshots say whose they are). */
  currentUserId(): string | null;
  /** Tells the other brokers of the origin (another deploy, in-page brokers of other tabs). */
  broadcast(message: CacheMessage): void;
  /** The fetch context for a fetch someone asked for (diagnostics attribute its requests); default `fetchContext`. */
  fetchContextFor?(cause: FetchCause | undefined): FetchContext;
}

/** Selects queries of a kind, optionally only those with some parameter values. */
export type QueryFilter = { kind: QueryKind } & Record<string, unknown>;

/**
 * The registry bound to this broker's cache: finds or builds the entry for a query in the current
 * sessions, and applies mutations here and in every other broker.
 */
export class QueryClient {
  readonly cache = new QueryCache();

  readonly #options: QueryClientOptions;
  constructor(options: QueryClientOptions) {
    this.#options = options;
  }

  ownerOf(scope: QueryScope): string {
    return this.#options.ownerOf(scope);
  }

  /** The entry a tab watching `spec` watches now. */
  entryFor(spec: QuerySpec): CacheEntry {
    const definition = queryDefinition(spec.kind);
    const owner = this.#options.ownerOf(definition.scope);
    const { clock } = this.#options;
    return this.cache.ensure({ spec, scope: definition.scope, owner }, (key, onGarbage, onUpdate) => {
      if (definition.scope === 'broker') {
        if (!('watch' in definition)) throw new TypeError(`${spec.kind} is a broker value without a source.`);
        return new LiveValue(
          key,
          spec,
          definition.scope,
          owner,
          definition.watch(this.#options.liveContext),
          clock,
          onGarbage,
        );
      }
      if (!('fetch' in definition)) throw new TypeError(`${spec.kind} has no fetch.`);
      const { fetchContext, fetchContextFor } = this.#options;
      const userId = definition.scope === 'user' ? this.#options.currentUserId() : undefined;
      // Its requests go out in the turns of the tabs that asked (worker/requests/scheduler.ts).
      const fetcher = (cause: FetchCause | undefined, claim: Claim) =>
        definition.fetch(fetchContextOnBehalfOf(fetchContextFor?.(cause) ?? fetchContext, claim), spec as never);
      return new FetchedQuery(key, spec, definition.scope, owner, fetcher, clock, onGarbage, userId, onUpdate);
    });
  }

  /** A mutation's answer: into the current session's entry here; other brokers refetch it. */
  setQueryData(spec: QuerySpec, value: unknown): void {
    const { kind, ...params } = spec;
    const owner = this.#options.ownerOf(queryDefinition(kind).scope);
    this.cache.get(owner, spec)?.setData(value);
    this.#options.broadcast({ type: 'cache-invalidate', owner, kind, params });
  }

  /** Marks matching queries of the current session stale, here and in every other broker. */
  invalidate(filter: QueryFilter, cause?: FetchCause): void {
    const { kind, ...params } = filter;
    const owner = this.#options.ownerOf(queryDefinition(kind).scope);
    this.#invalidateOwned(owner, kind, params, cause);
    this.#options.broadcast({ type: 'cache-invalidate', owner, kind, params });
  }

  /** What another broker (or any page) sent: the entries it names are refetched if watched. */
  receive(message: CacheMessage, cause?: FetchCause): void {
    this.#invalidateOwned(message.owner, message.kind, message.params, cause);
  }

  #invalidateOwned(owner: string, kind: QueryKind, params: Record<string, unknown>, cause?: FetchCause): void {
    const matches = (entry: CacheEntry) => {
      if (entry.owner !== owner || entry.spec.kind !== kind) return false;
      const own = entry.spec as unknown as Record<string, unknown>;
      return Object.entries(params).every(([name, value]) => value === undefined || own[name] === value);
    };
    for (const entry of this.cache.filter(matches)) entry.invalidate(cause);
  }
}
