/** Any JSON value; metadata fields and e-mail template content are free-form JSON. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Milliseconds since the Unix epoch. */
export type Millis = number;

/** The value of `x-stack-access-type`. */
export type AccessType = 'client' | 'server' | 'admin';

/**
 * The three kinds of access to the API: `client` (a browser, publishable key), `server` (secret server key),
 * `admin` (super secret admin key or owner token).
 */
export const accessTypes: readonly AccessType[] = ['client', 'server', 'admin'];

/** Every list endpoint but `GET /users` (PROTOCOL.md §2.5). */
export interface ListResponse<T> {
  items: T[];
  is_paginated: false;
}

/** `GET /users`: always paginated, `next_cursor` null on the last page or without `limit`. */
export interface PaginatedListResponse<T> {
  items: T[];
  is_paginated: true;
  pagination: { next_cursor: string | null };
}

/** The body of CRUD deletes and most custom actions. */
export interface SuccessResponse {
  success: true;
}

/** `*\/check-code` endpoints. */
export interface CodeCheckResponse {
  is_code_valid: true;
}
