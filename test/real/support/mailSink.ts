import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser, type AddressObject } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One message the backend sent, as the tests read it from the HTTP mailbox. */
export interface SunkMessage {
  id: number;
  from: string | null;
  /** Every recipient, lower-cased (envelope and headers). */
  to: string[];
  subject: string;
  text: string;
  html: string | null;
  receivedAtMillis: number;
}

export interface MailSinkOptions {
  /** Where the backend sends mail (`STACK_EMAIL_PORT`); default 8129. */
  smtpPort?: number;
  /** The HTTP mailbox; default 8130. */
  httpPort?: number;
  host?: string;
  /** Messages kept, oldest dropped first; default 1000. */
  capacity?: number;
}

export interface RunningMailSink {
  smtpPort: number;
  /** `http://host:port`: GET /messages?to=ADDRESS, DELETE /messages, GET /health. */
  httpUrl: string;
  messages(): readonly SunkMessage[];
  stop(): Promise<void>;
}

const MAX_MESSAGE_BYTES = 2 * 1024 * 1024;

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  const list = field === undefined ? [] : Array.isArray(field) ? field : [field];
  return list.flatMap((a) => a.value.map((v) => v.address?.toLowerCase()).filter((v): v is string => v !== undefined));
}

/**
 * An SMTP server on loopback that accepts every message (no authentication, no TLS: the backend
 * sends in the clear to 127.0.0.1) and keeps it, parsed, for an HTTP mailbox the tests read.
 */
export async function startMailSink(options: MailSinkOptions = {}): Promise<RunningMailSink> {
  const host = options.host ?? '127.0.0.1';
  const capacity = options.capacity ?? 1000;
  const kept: SunkMessage[] = [];
  let nextId = 1;

  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: MAX_MESSAGE_BYTES,
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          const envelope = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
          const to = [...new Set([...envelope, ...addresses(mail.to), ...addresses(mail.cc)])];
          kept.push({
            id: nextId++,
            from: mail.from?.value[0]?.address ?? null,
            to,
            subject: mail.subject ?? '',
            text: mail.text ?? '',
            html: typeof mail.html === 'string' ? mail.html : null,
            receivedAtMillis: Date.now(),
          });
          if (kept.length > capacity) kept.splice(0, kept.length - capacity);
          callback();
        })
        .catch((error: unknown) => callback(error instanceof Error ? error : new Error(String(error))));
    },
  });
  await new Promise<void>((resolve, reject) => {
    smtp.once('error', reject);
    smtp.listen(options.smtpPort ?? 8129, host, () => resolve());
  });
  const smtpPort = (smtp.server.address() as AddressInfo).port;

  const http: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://mailbox');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/health' && req.method === 'GET') return send(200, { mailSink: true, messages: kept.length });
    if (url.pathname !== '/messages') return send(404, { error: 'not found' });
    if (req.method === 'DELETE') {
      kept.length = 0;
      return send(200, { success: true });
    }
    if (req.method !== 'GET') return send(405, { error: 'GET or DELETE' });
    const to = url.searchParams.get('to')?.toLowerCase();
    const after = Number(url.searchParams.get('after') ?? '0');
    return send(
      200,
      kept.filter((m) => (to === undefined || m.to.includes(to)) && m.id > after),
    );
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.httpPort ?? 8130, host, () => resolve());
  });
  const httpPort = (http.address() as AddressInfo).port;

  return {
    smtpPort,
    httpUrl: `http://${host}:${httpPort}`,
    messages: () => kept,
    stop: async () => {
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}

/** Reads the HTTP mailbox of a running sink. */
export async function sunkMessages(httpUrl: string, to: string): Promise<SunkMessage[]> {
  const response = await fetch(`${httpUrl}/messages?to=${encodeURIComponent(to)}`);
  if (!response.ok) throw new Error(`mail sink: ${response.status} ${await response.text()}`);
  return (await response.json()) as SunkMessage[];
}
