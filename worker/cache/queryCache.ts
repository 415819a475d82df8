import { Query, systemScheduler, type Scheduler } from './query.js';

/** Every cache entry of a broker, by key. Entries remove themselves 5 s after their last subscriber. */
export class QueryCache {
  private queries = new Map<string, Query>();

  constructor(private readonly scheduler: Scheduler = systemScheduler) {}

  /** The entry for `key`, created with `fetcher` when missing. */
  ensure<T>(key: string, fetcher: () => Promise<T>): Query<T> {
    let query = this.queries.get(key) as Query<T> | undefined;
    if (!query) {
      query = new Query<T>(key, fetcher, this.scheduler, (garbage) => {
        if (this.queries.get(garbage.key) === garbage) {
          this.queries.delete(garbage.key);
          garbage.dispose();
        }
      });
      this.queries.set(key, query as Query);
    }
    return query;
  }

  get(key: string): Query | undefined {
    return this.queries.get(key);
  }

  /** Sets the value of an existing entry (entries nobody asked for are not created). */
  setData(key: string, data: unknown): boolean {
    const query = this.queries.get(key);
    query?.setData(data);
    return query !== undefined;
  }

  /** Invalidates every entry whose key starts with `prefix`. */
  invalidate(prefix: string): void {
    for (const [key, query] of this.queries) if (key.startsWith(prefix)) query.invalidate();
  }

  /** Invalidates the entries someone watches: they refetch now; unwatched ones are left to expire. */
  refetchWatched(predicate: (key: string) => boolean = () => true): number {
    let count = 0;
    for (const [key, query] of this.queries) {
      if (query.subscriberCount > 0 && predicate(key)) {
        query.invalidate();
        count++;
      }
    }
    return count;
  }

  /** Drops entries of other sessions that nobody watches (after a sign-out, for instance). */
  removeUnwatched(predicate: (key: string) => boolean): void {
    for (const [key, query] of this.queries) {
      if (predicate(key) && query.subscriberCount === 0) {
        this.queries.delete(key);
        query.dispose();
      }
    }
  }

  get size(): number {
    return this.queries.size;
  }

  keys(): string[] {
    return [...this.queries.keys()];
  }

  clear(): void {
    for (const query of this.queries.values()) query.dispose();
    this.queries.clear();
  }
}
