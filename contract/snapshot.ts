import type { SerializedError } from '../protocol/errors/errors.js';

/** What a tab sees of a query. Plain data: it crosses to tabs by structured clone. */
export interface QuerySnapshot<T = unknown> {
  status: 'pending' | 'success' | 'error';
  data: T | undefined;
  error: SerializedError | null;
  updatedAtMillis: number;
  isFetching: boolean;
  /** For the signed-in user's data: whose it is (a tab keeps a copy only for that user). */
  userId?: string | null;
  /**
   * Set by the tab, never by the broker: the data is the copy kept from an earlier visit, shown
   * until the broker has today's value.
   */
  isStale?: boolean;
}

export function pendingSnapshot<T>(): QuerySnapshot<T> {
  return { status: 'pending', data: undefined, error: null, updatedAtMillis: 0, isFetching: false };
}
