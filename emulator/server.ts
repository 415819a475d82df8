import type { IncomingMessage, ServerResponse } from 'node:http';
import { KnownError } from '../protocol/errors/knownError.js';
import { InvalidArgumentError } from '../protocol/errors/errors.js';
import { authenticate } from './auth/authenticate.js';
import { randomToken } from './crypto.js';
import type { EmulatorEnv } from './env.js';
import { parseBody, parseCookies, readBody } from './http/body.js';
import { refuseServerAccessFromPages } from './http/pageAccess.js';
import { ServiceKnownError, StatusError } from './errors.js';
import type { AccessPolicy } from './http/guard.js';
import type { Router } from './http/router.js';
import { serviceErrorBody } from './http/serviceWording.js';
import type { ApiRequest, Reply } from './http/types.js';

/**
 * The request headers of the protocol, by their name after `x-stack-` (PROTOCOL.md §1.2–1.3), plus
 * those `@stackframe/js` 2.8.39 and later send with every call.
 */
const PROTOCOL_HEADERS = [
  'project-id',
  'override-error-status',
  'random-nonce',
  'client-version',
  'disable-artificial-development-delay',
  'access-type',
  'publishable-client-key',
  'secret-server-key',
  'super-secret-admin-key',
  'admin-access-token',
  'refresh-token',
  'access-token',
  'allow-anonymous-user',
  'branch-id',
];
/** `@stackframe/js` 2.8.108 and later send each protocol header as `x-hexclave-*` instead of `x-stack-*`. */
const HEADER_FAMILIES = ['x-stack-', 'x-hexclave-'] as const;

/**
 * CORS of every `/api/*` response and preflight (PROTOCOL.md §1.1). The allowed request headers
 * are the service's today (the 2026-04 backend: v2.7.27's, the two that `@stackframe/js` 2.8.39 and
 * later add to every call, `x-stack-branch-id` and `x-vercel-protection-bypass`), in both header
 * families: the service does not know `x-hexclave-*` yet, the emulator does, so that 2.8.108 and later
 * work against it (emulator/README.md). Both families of the response headers are readable.
 */
export const corsHeaders: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
  'access-control-max-age': '86400',
  'access-control-allow-headers': [
    'content-type',
    'authorization',
    ...HEADER_FAMILIES.flatMap((family) => PROTOCOL_HEADERS.map((name) => `${family}${name}`)),
    'baggage',
    'sentry-trace',
    'x-vercel-protection-bypass',
    'ngrok-skip-browser-warning',
  ].join(', '),
  'access-control-expose-headers': [
    'content-type',
    ...HEADER_FAMILIES.flatMap((family) => [`${family}actual-status`, `${family}known-error`]),
  ].join(', '),
};

/**
 * Request headers under the names the handlers read: an `x-hexclave-*` header means what its
 * `x-stack-*` twin means (which wins when a request sends both), so every release of the SDK is
 * authenticated and served alike.
 */
function withStackNames(headers: Record<string, string | undefined>): Record<string, string | undefined> {
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith('x-hexclave-')) continue;
    const twin = `x-stack-${name.slice('x-hexclave-'.length)}`;
    if (headers[twin] === undefined) headers[twin] = value;
  }
  return headers;
}

const API_PREFIX = /^\/api\/(?:v1|v2beta[1-4]|latest)(?=\/|$)/;
const ALLOWED_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

function firstValues(headers: IncomingMessage['headers']): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = Object.create(null) as Record<string, string | undefined>;
  for (const [name, value] of Object.entries(headers)) out[name] = Array.isArray(value) ? value[0] : value;
  return out;
}

function queryRecord(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  // Own-property checks: `key in out` would also find toString & co. and silently drop such keys.
  for (const [key, value] of url.searchParams) {
    if (!Object.hasOwn(out, key))
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Turns anything a handler threw into the reply the service would give. Never a stack trace. */
export function errorReply(error: unknown, log: (line: string) => void): Reply {
  if (error instanceof KnownError || error instanceof ServiceKnownError) {
    const body = error instanceof KnownError ? serviceErrorBody(error) : error.toWire();
    return { kind: 'json', status: error.status, body, headers: { 'x-stack-known-error': error.code } };
  }
  if (error instanceof StatusError) return { kind: 'text', status: error.status, body: error.message };
  const message = error instanceof Error ? error.message : String(error);
  log(`internal error: ${message}`);
  return {
    kind: 'text',
    status: 500,
    body: `Internal Server Error. The error message follows, but will be stripped in production.\n\n${message}`,
  };
}

interface Written {
  status: number;
}

/**
 * Whether a request spoke the `x-hexclave-*` family (`@stackframe/js` 2.8.108 and later): its answer then carries the
 * `x-hexclave-*` twins of the known-error and actual-status headers too. The service sends only `x-stack-*`, so a
 * request in that family gets exactly the service's headers.
 */
export function usesHexclaveHeaders(headers: IncomingMessage['headers']): boolean {
  return Object.keys(headers).some((name) => name.startsWith('x-hexclave-'));
}

/** Writes a reply, applying the error-status override when asked (PROTOCOL.md §2.4). */
export function writeReply(
  res: ServerResponse,
  reply: Reply,
  options: {
    cors: boolean;
    override: boolean;
    pretty: boolean;
    extraHeaders?: Record<string, string>;
    hexclave?: boolean;
  },
): Written {
  const headers: Record<string, string> = {
    'x-stack-request-id': randomToken(16),
    'cache-control': 'no-store, max-age=0',
    ...(options.cors ? corsHeaders : {}),
    ...options.extraHeaders,
    ...reply.headers,
  };
  let body = '';
  switch (reply.kind) {
    case 'json':
      headers['content-type'] = 'application/json; charset=utf-8';
      // Known errors are always pretty-printed; other JSON only for browsers asking for HTML.
      body =
        headers['x-stack-known-error'] !== undefined || options.pretty
          ? JSON.stringify(reply.body, null, 2)
          : JSON.stringify(reply.body);
      break;
    case 'text':
      headers['content-type'] = 'text/plain; charset=utf-8';
      body = reply.body;
      break;
    case 'html':
      headers['content-type'] = 'text/html; charset=utf-8';
      // No page of the emulator (the OAuth consent page above all) may be framed: a page around it
      // could lure the user into clicking "Allow" through it.
      headers['x-frame-options'] = 'DENY';
      headers['content-security-policy'] = forbidFraming(headers['content-security-policy']);
      body = reply.body;
      break;
    case 'redirect':
      headers.location = reply.location;
      break;
    case 'empty':
      break;
  }
  let status = reply.status;
  if (options.override && status >= 400 && status <= 599) {
    headers['x-stack-actual-status'] = String(status);
    status = 200;
  }
  if (options.hexclave === true)
    for (const name of ['known-error', 'actual-status']) {
      const value = headers[`x-stack-${name}`];
      if (value !== undefined) headers[`x-hexclave-${name}`] = value;
    }
  res.writeHead(status, headers);
  res.end(body);
  return { status: reply.status };
}

/**
 * A page's Content-Security-Policy with `frame-ancestors 'none'` (the policy browsers now follow; X-Frame-Options for
 * older ones).
 */
function forbidFraming(policy: string | undefined): string {
  const directives = (policy ?? '')
    .split(';')
    .map((d) => d.trim())
    .filter((d) => d !== '' && !/^frame-ancestors\b/i.test(d));
  return [...directives, "frame-ancestors 'none'"].join('; ');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The 404 of unknown API paths: plain text, not a known error. */
function notFound(url: URL): Reply {
  return {
    kind: 'text',
    status: 404,
    body: `404 — this page does not exist in Stack Auth's API.\n\nPlease see the API documentation at https://docs.stack-auth.com.\n\nURL: ${url.toString()}`,
  };
}

/** Serves one `/api/v1/*` request: faults, body, authentication, routing, handler, statistics. */
export async function handleApiRequest(
  env: EmulatorEnv,
  router: Router,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const headers = withStackNames(firstValues(req.headers));
  const hexclave = usesHexclaveHeaders(req.headers);
  const override = headers['x-stack-override-error-status'] !== undefined;
  const pretty = (headers.accept ?? '').includes('text/html');
  const path = url.pathname.replace(API_PREFIX, '') || '/';

  if (method === 'OPTIONS') {
    res.writeHead(200, { ...corsHeaders, 'content-length': '0' });
    res.end();
    return;
  }
  // As the service's framework does: a trailing slash is redirected away (permanently, method kept).
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) {
    const location = `${url.pathname.replace(/\/+$/, '')}${url.search}`;
    res.writeHead(308, { location });
    res.end(location);
    return;
  }
  if (!ALLOWED_METHODS.has(method)) {
    writeReply(res, { kind: 'text', status: 405, body: 'Method not allowed' }, { cors: true, override: false, pretty });
    return;
  }

  const match = router.match(method, path);
  const routeKey = match.kind === 'found' ? match.routeKey : 'unmatched';
  const write = match.kind === 'found' && match.write;

  const fault = env.faults.pick(method, url.pathname);
  if (fault)
    env.stats.fault(
      fault.type === 'drop'
        ? `drop-${fault.phase ?? 'before'}`
        : fault.type === 'status'
          ? `status-${fault.status}`
          : fault.type,
    );
  if (fault?.type === 'latency') await sleep(fault.ms);
  if (fault?.type === 'drop' && fault.phase !== 'after') {
    req.socket.destroy();
    env.stats.request(routeKey, 0, false);
    return;
  }
  if (fault?.type === 'status' || fault?.type === 'loop-detected') {
    const reply: Reply =
      fault.type === 'loop-detected'
        ? { kind: 'text', status: 508, body: 'Loop detected: INFINITE_LOOP_DETECTED' }
        : {
            kind: 'text',
            status: fault.status,
            body:
              fault.status === 429
                ? 'Too Many Requests'
                : fault.status === 503
                  ? 'Service Unavailable'
                  : 'Internal Server Error',
            ...(fault.type === 'status' && fault.retry_after !== undefined
              ? { headers: { 'retry-after': fault.retry_after } }
              : {}),
          };
    // Infrastructure in front of the service answers these, and it knows nothing of the override header.
    const written = writeReply(res, reply, { cors: true, override: false, pretty });
    env.stats.request(routeKey, written.status, false);
    return;
  }

  let reply: Reply;
  try {
    // Routing comes first, as in the service: an unknown path is a 404 whatever the credentials.
    if (match.kind === 'not-found') reply = notFound(url);
    // The service's framework answers a 405 with no body.
    else if (match.kind === 'method-not-allowed') reply = { kind: 'empty', status: 405 };
    else {
      const raw = await readBody(req);
      const body = parseBody(headers['content-type'], raw);
      const now = env.clock.now();
      // The demo keys are public: no page of a foreign origin may act as server or admin (http/pageAccess.ts).
      refuseServerAccessFromPages(headers, env.allowedOrigins);
      const auth = await authenticate(headers, env.store, now);
      const apiRequest: ApiRequest = {
        method,
        url,
        path,
        headers,
        query: queryRecord(url),
        params: match.params,
        body,
        auth,
        now,
        env,
        routeKey,
        cookies: parseCookies(headers.cookie),
      };
      reply = await match.handler(apiRequest);
    }
  } catch (error) {
    reply = errorReply(error, env.log);
  }
  if (write) env.store.changed();
  if (fault?.type === 'drop') {
    // The write (if any) happened; the answer is lost on the way.
    req.socket.destroy();
    env.stats.request(routeKey, 0, false);
    return;
  }
  // The framework-level 405 is not subject to the override (§2.4).
  const written = writeReply(res, reply, {
    cors: true,
    override: override && match.kind !== 'method-not-allowed',
    pretty,
    hexclave,
  });
  env.stats.request(routeKey, written.status, write);
}

/**
 * Dev endpoints under `/emulator` are plain JSON (no overrides) and answer InvalidArgumentError as
 * 400. Only same-origin pages, the allowed origins and requests without an origin reach them
 * (`AccessPolicy.devAccess`); a refused request gets a 403 without CORS headers, before any handler.
 */
export async function handleDevRequest(
  env: EmulatorEnv,
  router: Router,
  policy: AccessPolicy,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const headers = firstValues(req.headers);
  const access = policy.devAccess(headers.origin, headers.host);
  if (!access.allowed) {
    writeReply(
      res,
      { kind: 'text', status: 403, body: access.message },
      { cors: false, override: false, pretty: false, extraHeaders: { vary: 'origin' } },
    );
    return;
  }
  if (method === 'OPTIONS') {
    res.writeHead(204, { ...access.headers, 'content-length': '0' });
    res.end();
    return;
  }
  const match = router.match(method, url.pathname);
  let reply: Reply;
  try {
    if (match.kind !== 'found') {
      reply = {
        kind: 'text',
        status: match.kind === 'not-found' ? 404 : 405,
        body: match.kind === 'not-found' ? `No emulator endpoint at ${url.pathname}` : 'Method not allowed',
      };
    } else {
      const raw = await readBody(req);
      // Dev endpoints are lenient: an empty body is no body, whatever its content type says.
      const body = raw.length === 0 ? undefined : parseBody(headers['content-type'], raw);
      reply = await match.handler({
        method,
        url,
        path: url.pathname,
        headers,
        query: queryRecord(url),
        params: match.params,
        body,
        auth: null,
        now: env.clock.now(),
        env,
        routeKey: match.routeKey,
        cookies: parseCookies(headers.cookie),
      });
      if (match.write) env.store.changed();
    }
  } catch (error) {
    reply =
      error instanceof InvalidArgumentError
        ? { kind: 'json', status: 400, body: error.toJSON() }
        : errorReply(error, env.log);
  }
  writeReply(res, reply, { cors: false, override: false, pretty: true, extraHeaders: access.headers });
}

/** Everything under /api/ is the API's: unknown versions get the API's own 404 text too. */
export function isApiPath(pathname: string): boolean {
  return pathname === '/api' || pathname.startsWith('/api/');
}
