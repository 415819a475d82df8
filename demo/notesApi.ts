/**
 * The demo app's own API, served beside the demo by its Vite plugin (`/api/*`): notes per user, each write applied once
 * per `Idempotency-Key`, every request's access token checked with `authbroker/server`'s verifier (in whichever header
 * a Stack client sends it). What the "Notes" page calls with `client.fetch`, from every tab and through an outage.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createAccessTokenVerifier, createRequestVerifier } from '../protocol/server.js';

interface Note {
  id: string;
  text: string;
  version: number;
  savedAtMillis: number;
}

const send = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body));
};

async function textOf(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) {
    text += String(chunk);
    if (text.length > 10_000) break;
  }
  return text;
}

/** A handler for `/api/*` requests (false for any other path), for the service at `baseUrl`. */
export function notesApi(service: { baseUrl: string; projectId: string }) {
  const verify = createRequestVerifier(createAccessTokenVerifier(service));
  const notes = new Map<string, Map<string, Note>>();
  /** Answers already given, by user and idempotency key: a write that arrives twice is applied once. */
  const answered = new Map<string, Note>();
  let requests = 0;
  return (request: IncomingMessage, response: ServerResponse): boolean => {
    const url = new URL(request.url ?? '/', 'http://demo');
    if (!url.pathname.startsWith('/api/')) return false;
    void (async () => {
      requests += 1;
      let userId: string | null;
      try {
        userId = (await verify({ headers: request.headers }))?.userId ?? null;
      } catch (error) {
        return send(response, 401, { error: (error as { code?: string }).code ?? 'INVALID_ACCESS_TOKEN' });
      }
      if (userId === null) return send(response, 401, { error: 'No access token came with the request.' });
      const own = notes.get(userId) ?? new Map<string, Note>();
      notes.set(userId, own);
      if (url.pathname === '/api/whoami') {
        const header = request.headers.authorization
          ? 'Authorization'
          : request.headers['x-stack-auth']
            ? 'x-stack-auth'
            : 'x-stack-access-token';
        return send(response, 200, { userId, header, requests });
      }
      if (url.pathname === '/api/notes' && request.method === 'GET')
        return send(response, 200, { notes: [...own.values()].sort((a, b) => a.id.localeCompare(b.id)) });
      const match = /^\/api\/notes\/([\w-]{1,40})$/.exec(url.pathname);
      if (match === null || request.method !== 'PUT') return send(response, 404, { error: 'No such route.' });
      const text = await textOf(request);
      if (text.length > 2000) return send(response, 413, { error: 'A note holds at most 2000 characters.' });
      const key = request.headers['idempotency-key'];
      const seen = typeof key === 'string' ? answered.get(`${userId}:${key}`) : undefined;
      if (seen !== undefined) return send(response, 200, seen);
      const note = { id: match[1]!, text, version: (own.get(match[1]!)?.version ?? 0) + 1, savedAtMillis: Date.now() };
      own.set(note.id, note);
      if (typeof key === 'string') answered.set(`${userId}:${key}`, note);
      send(response, 200, note);
    })().catch((error: unknown) => send(response, 500, { error: String(error) }));
    return true;
  };
}
