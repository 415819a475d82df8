import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmulatorEnv } from '../env.js';
import type { AccessPolicy } from '../http/guard.js';
import { senderOf, type MailboxItem } from '../mailbox.js';

/**
 * The emulator's mailbox under Inbucket's REST API v1, on a port of its own (`inbucketPort`), for
 * tests written against the mail server Stack Auth develops with (its end-to-end suite reads
 * `STACK_INBUCKET_API_URL`):
 *
 *   GET    /api/v1/mailbox/{name}        the mailbox's messages, oldest first (headers only)
 *   GET    /api/v1/mailbox/{name}/{id}   one message with its body; marks it seen
 *   DELETE /api/v1/mailbox/{name}        empties the mailbox
 *   DELETE /api/v1/mailbox/{name}/{id}   deletes one message
 *
 * A mailbox is named as Inbucket names it by default: the address's local part, lower-cased,
 * without a `+tag`. Like the dev endpoints, it answers no web page of another origin.
 */

interface InbucketHeader {
  mailbox: string;
  id: string;
  from: string;
  to: string[];
  subject: string;
  date: string;
  'posix-millis': number;
  size: number;
  seen: boolean;
}

interface InbucketMessage extends InbucketHeader {
  body: { text: string; html: string };
  header: Record<string, string[]>;
  attachments: never[];
}

/** Inbucket's default mailbox name of an address (or of a name already): `Ada+news@x.org` → `ada`. */
export function inbucketMailboxName(addressOrName: string): string {
  const at = addressOrName.lastIndexOf('@');
  const local = at === -1 ? addressOrName : addressOrName.slice(0, at);
  return local.split('+')[0]!.trim().toLowerCase();
}

/** Which messages have been read in full, per running emulator (Inbucket's `seen`). */
const seenByEnv = new WeakMap<EmulatorEnv, Set<string>>();

function seenOf(env: EmulatorEnv): Set<string> {
  let seen = seenByEnv.get(env);
  if (!seen) {
    seen = new Set();
    seenByEnv.set(env, seen);
  }
  return seen;
}

function headerOf(env: EmulatorEnv, item: MailboxItem): InbucketHeader {
  const project = env.store.project(item.project_id);
  return {
    mailbox: inbucketMailboxName(item.to),
    id: item.id,
    from: project ? senderOf(project) : '',
    to: [`<${item.to}>`],
    subject: item.subject,
    date: new Date(item.sent_at_millis).toISOString(),
    'posix-millis': item.sent_at_millis,
    size: Buffer.byteLength(item.text) + Buffer.byteLength(item.html),
    seen: seenOf(env).has(item.id),
  };
}

function messageOf(env: EmulatorEnv, item: MailboxItem): InbucketMessage {
  const header = headerOf(env, item);
  return {
    ...header,
    body: { text: item.text, html: item.html },
    header: {
      From: [header.from],
      To: [item.to],
      Subject: [item.subject],
      Date: [new Date(item.sent_at_millis).toUTCString()],
      'Content-Type': ['multipart/alternative'],
    },
    attachments: [],
  };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  const isText = typeof body === 'string' && status >= 400;
  res.writeHead(status, {
    ...headers,
    'content-type': isText ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
    'cache-control': 'no-store',
  });
  res.end(isText ? body : JSON.stringify(body));
}

/** The request listener of the Inbucket-compatible port. */
export function inbucketListener(
  env: EmulatorEnv,
  policy: AccessPolicy,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const origin = req.headers.origin;
    const access = policy.hostAllowed(req.headers.host)
      ? policy.devAccess(origin, req.headers.host)
      : ({ allowed: false, message: policy.hostRefusal(req.headers.host ?? '') } as const);
    if (!access.allowed) return send(res, 403, access.message, {});
    const method = (req.method ?? 'GET').toUpperCase();
    if (method === 'OPTIONS') {
      res.writeHead(204, { ...access.headers, 'content-length': '0' });
      return void res.end();
    }
    const path = new URL(req.url ?? '/', 'http://inbucket').pathname;
    const match = /^\/api\/v1\/mailbox\/([^/]+)(?:\/([^/]+))?\/?$/.exec(path);
    if (!match) return send(res, 404, '404 page not found\n', access.headers);
    let name: string;
    let id: string | undefined;
    try {
      name = inbucketMailboxName(decodeURIComponent(match[1]!));
      id = match[2] === undefined ? undefined : decodeURIComponent(match[2]);
    } catch {
      return send(res, 400, 'Malformed mailbox name or message id\n', access.headers);
    }
    const inMailbox = (item: MailboxItem) => inbucketMailboxName(item.to) === name;
    const items = env.mailbox.list().filter(inMailbox);
    if (id === undefined) {
      if (method === 'GET')
        return send(
          res,
          200,
          items.map((item) => headerOf(env, item)),
          access.headers,
        );
      if (method === 'DELETE') {
        env.mailbox.remove(inMailbox);
        return send(res, 200, 'OK', access.headers);
      }
      return send(res, 405, 'Method not allowed\n', access.headers);
    }
    const item = items.find((candidate) => candidate.id === id);
    if (!item) return send(res, 404, '404 page not found\n', access.headers);
    if (method === 'GET') {
      const message = messageOf(env, item);
      seenOf(env).add(item.id);
      return send(res, 200, message, access.headers);
    }
    if (method === 'DELETE') {
      env.mailbox.remove((candidate) => candidate.id === item.id);
      return send(res, 200, 'OK', access.headers);
    }
    return send(res, 405, 'Method not allowed\n', access.headers);
  };
}
