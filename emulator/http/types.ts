import type { AuthContext } from '../auth/authenticate.js';
import type { EmulatorEnv } from '../env.js';

/** One API request as handlers see it. */
export interface ApiRequest {
  method: string;
  /** The URL as requested (full, for messages like SCHEMA_ERROR's and the 404 text). */
  url: URL;
  /** The path under `/api/v1` (or a beta alias), e.g. `/users/me`. */
  path: string;
  /** Lower-cased header names; a repeated header keeps its first value. */
  headers: Readonly<Record<string, string | undefined>>;
  query: Record<string, string>;
  params: Record<string, string>;
  /** Parsed per content type (PROTOCOL.md §1.5); undefined when there is no body. */
  body: unknown;
  auth: AuthContext | null;
  /** The emulator's time when the request arrived. */
  now: number;
  env: EmulatorEnv;
  /** The route pattern that matched, e.g. `PATCH /users/:user_id` (for statistics). */
  routeKey: string;
  /** Cookies sent with the request (the OAuth inner cookie). */
  cookies: Record<string, string>;
}

/** What a handler answers. JSON bodies are pretty-printed as the service does. */
export type Reply =
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'text'; status: number; body: string; headers?: Record<string, string> }
  | { kind: 'html'; status: number; body: string; headers?: Record<string, string> }
  | { kind: 'redirect'; status: 307 | 303; location: string; headers?: Record<string, string> }
  | { kind: 'empty'; status: number; headers?: Record<string, string> };

export const json = (body: unknown, status = 200, headers?: Record<string, string>): Reply => ({
  kind: 'json',
  status,
  body,
  ...(headers ? { headers } : {}),
});
export const text = (body: string, status = 200): Reply => ({ kind: 'text', status, body });
export const html = (body: string, status = 200, headers?: Record<string, string>): Reply => ({
  kind: 'html',
  status,
  body,
  ...(headers ? { headers } : {}),
});
export const success = (): Reply => json({ success: true });
export const redirect = (location: string, headers?: Record<string, string>): Reply => ({
  kind: 'redirect',
  status: 307,
  location,
  ...(headers ? { headers } : {}),
});

export type Handler = (req: ApiRequest) => Promise<Reply> | Reply;

/** Marks handlers that change state, for the `writes` statistic and persistence. */
export interface RouteOptions {
  /** Default: true for every method but GET. */
  write?: boolean;
}
