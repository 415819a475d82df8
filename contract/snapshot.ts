import type { SerializedError } from '../protocol/errors/errors.js';

/** What a tab sees of a query. Plain data: it crosses to tabs by structured clone. */
export interface QuerySnapshot<T = unknown> {
  status: 'pending' | 'success' | 'error';
  data: T | undefined;
  error: SerializedError | null;
  updatedAtMillis: number;
  isFetching: boolean;
}

export function pendingSnapshot<T>(): QuerySnapshot<T> {
  return { status: 'pending', data: undefined, error: null, updatedAtMillis: 0, isFetching: false };
}
