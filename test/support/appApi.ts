/**
 * A small API of an app's own, as the tests of `client.fetch` and of writes that wait out an outage call it: it checks
 * the user's access token with `authbroker/server`'s verifier (any header a Stack client sends it in), keeps notes per
 * user, applies a write once per `Idempotency-Key`, and records every request that reached it. It can stream, echo a
 * streamed body, be unreachable, or drop a share of its writes' connections before or after applying them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAccessTokenVerifier, createRequestVerifier } from '../../protocol/server.js';

export interface Arrival {
  method: string;
  path: string;
  /** The header the token came in, if any. */
  tokenHeader: 'authorization' | 'x-stack-auth' | 'x-stack-access-token' | null;
  userId: string | null;
  idempotencyKey: string | null;
  status: number;
  /** The call's own id (`x-call`), when the test gives one. */
  call: string | null;
  /** When it arrived (ms since the epoch). */
  atMillis: number;
}

export interface Note {
  id: string;
  text: string;
  version: number;
}

export interface AppApi {
  /** Answers requests under `/api/`; false for any other (left to the caller). */
  handle(request: IncomingMessage, response: ServerResponse): boolean;
  readonly arrivals: Arrival[];
  /** Each write applied, by idempotency key, in the order applied. */
  readonly applied: Array<{ key: string; userId: string; noteId: string; text: string }>;
  notes(userId: string): Note[];
  /** Unreachable: every request's connection is dropped before an answer. */
  reachable: boolean;
  /** A share (0–1) of writes whose connection is dropped: half before applying them, half after. */
  dropWrites: number;
}

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body));
};

function tokenHeaderOf(request: IncomingMessage): Arrival['tokenHeader'] {
  if (request.headers.authorization) return 'authorization';
  if (request.headers['x-stack-auth']) return 'x-stack-auth';
  if (request.headers['x-stack-access-token']) return 'x-stack-access-token';
  return null;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return text;
}

export function createAppApi(service: { baseUrl: string; projectId: string; now?: () => number }): AppApi {
  const verify = createRequestVerifier(
    createAccessTokenVerifier({
      baseUrl: service.baseUrl,
      projectId: service.projectId,
      ...(service.now === undefined ? {} : { clock: { now: service.now } }),
    }),
  );
  const notes = new Map<string, Map<string, Note>>();
  const answered = new Map<string, { status: number; body: unknown }>();
  const api: AppApi = {
    arrivals: [],
    applied: [],
    notes: (userId) => [...(notes.get(userId)?.values() ?? [])],
    reachable: true,
    dropWrites: 0,
    handle(request, response) {
      const url = new URL(request.url ?? '/', 'http://app');
      if (!url.pathname.startsWith('/api/')) return false;
      void serve(request, response, url).catch((error: unknown) => {
        if (!response.headersSent) json(response, 500, { error: String(error) });
      });
      return true;
    },
  };

  async function serve(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const arrival: Arrival = {
      method: request.method ?? 'GET',
      path: url.pathname,
      tokenHeader: tokenHeaderOf(request),
      userId: null,
      idempotencyKey: (request.headers['idempotency-key'] as string | undefined) ?? null,
      status: 0,
      call: (request.headers['x-call'] as string | undefined) ?? null,
      atMillis: Date.now(),
    };
    if (!api.reachable) return void request.socket.destroy();
    api.arrivals.push(arrival);
    const answer = (status: number, body: unknown) => {
      arrival.status = status;
      json(response, status, body);
    };
    let userId: string | null = null;
    try {
      userId = (await verify({ headers: request.headers }))?.userId ?? null;
    } catch (error) {
      return answer(401, { error: (error as { code?: string }).code ?? 'INVALID_TOKEN' });
    }
    arrival.userId = userId;
    if (url.pathname === '/api/stream') {
      arrival.status = 200;
      response.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' });
      for (let i = 1; i <= 5; i++) {
        response.write(`chunk ${i}\n`);
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      return void response.end();
    }
    if (url.pathname === '/api/echo' && request.method === 'POST') {
      arrival.status = 200;
      response.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' });
      return void request.pipe(response);
    }
    if (userId === null) return answer(401, { error: 'NO_TOKEN' });
    if (url.pathname === '/api/whoami') return answer(200, { userId, tokenHeader: arrival.tokenHeader });
    if (url.pathname === '/api/notes' && request.method === 'GET') return answer(200, { notes: api.notes(userId) });
    const note = /^\/api\/notes\/([\w-]{1,64})$/.exec(url.pathname);
    if (note === null || request.method !== 'PUT') return answer(404, { error: 'NOT_FOUND' });
    const text = await bodyOf(request);
    if (text.length > 10_000) return answer(413, { error: 'TOO_LONG' });
    if (text === 'refuse me') return answer(409, { error: 'CONFLICT' });
    const key = arrival.idempotencyKey;
    const drop = Math.random() < api.dropWrites ? (Math.random() < 0.5 ? 'before' : 'after') : null;
    if (drop === 'before') return void request.socket.destroy();
    const seen = key === null ? undefined : answered.get(`${userId}:${key}`);
    if (seen !== undefined) {
      if (drop === 'after') return void request.socket.destroy();
      return answer(seen.status, seen.body);
    }
    const own = notes.get(userId) ?? new Map<string, Note>();
    notes.set(userId, own);
    const saved = { id: note[1]!, text, version: (own.get(note[1]!)?.version ?? 0) + 1 };
    own.set(saved.id, saved);
    api.applied.push({ key: key ?? '', userId, noteId: saved.id, text });
    if (key !== null) answered.set(`${userId}:${key}`, { status: 200, body: saved });
    if (drop === 'after') return void request.socket.destroy();
    answer(200, saved);
  }
  return api;
}

/** The API on a port of its own (for the broker tests in Node). */
export async function serveAppApi(api: AppApi): Promise<{ url: string; stop(): Promise<void> }> {
  const server = createServer((request, response) => {
    if (!api.handle(request, response)) response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
