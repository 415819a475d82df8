import { createServer, type Server } from 'node:http';
import { simpleParser, type AddressObject } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * The real backend's mail server for the lane: SMTP where the backend sends (its `STACK_EMAIL_PORT`,
 * 8129), and the messages under Inbucket's REST API v1 on PREFIX05, where Stack Auth's suite reads
 * them (the mail server it develops with is Inbucket). Each recipient's mailbox is named as
 * Inbucket names it: the local part, lower-cased, without a `+tag`.
 */

interface Stored {
  id: string;
  mailbox: string;
  from: string;
  to: string[];
  subject: string;
  date: string;
  posixMillis: number;
  size: number;
  seen: boolean;
  text: string;
  html: string;
  header: Record<string, string[]>;
}

export interface InbucketSink {
  url: string;
  stop(): Promise<void>;
}

const mailboxName = (address: string) => address.split('@')[0]!.split('+')[0]!.toLowerCase();

/** As Inbucket shows addresses: `Name <address>`, the name unquoted, or `<address>`. */
function addressList(field: AddressObject | AddressObject[] | undefined): string[] {
  const list = field === undefined ? [] : Array.isArray(field) ? field : [field];
  return list.flatMap((a) => a.value.map((v) => (v.name ? `${v.name} <${v.address ?? ''}>` : `<${v.address ?? ''}>`)));
}

export async function startInbucketSink(options: { smtpPort: number; httpPort: number }): Promise<InbucketSink> {
  const kept: Stored[] = [];
  let next = 1;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: 4 * 1024 * 1024,
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          const received = Date.now();
          const header: Record<string, string[]> = {};
          for (const { key, line } of mail.headerLines)
            header[key] = [...(header[key] ?? []), line.slice(line.indexOf(':') + 1).trim()];
          for (const recipient of new Set(session.envelope.rcptTo.map((r) => mailboxName(r.address)))) {
            kept.push({
              id: `${new Date(received).toISOString().replace(/[-:]/g, '').slice(0, 15)}-${String(next++).padStart(4, '0')}`,
              mailbox: recipient,
              from: addressList(mail.from)[0] ?? '',
              to: addressList(mail.to),
              subject: mail.subject ?? '',
              date: new Date(received).toISOString(),
              posixMillis: received,
              size:
                Buffer.byteLength(mail.text ?? '') + Buffer.byteLength(typeof mail.html === 'string' ? mail.html : ''),
              seen: false,
              text: mail.text ?? '',
              html: typeof mail.html === 'string' ? mail.html : '',
              header,
            });
          }
          if (kept.length > 5000) kept.splice(0, kept.length - 5000);
          callback();
        })
        .catch((error: unknown) => callback(error instanceof Error ? error : new Error(String(error))));
    },
  });
  await new Promise<void>((resolve, reject) => {
    smtp.once('error', reject);
    smtp.listen(options.smtpPort, '127.0.0.1', () => resolve());
  });

  const headerOf = ({ text: _text, html: _html, header: _header, posixMillis, ...rest }: Stored) => ({
    ...rest,
    'posix-millis': posixMillis,
  });
  const http: Server = createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const match = /^\/api\/v1\/mailbox\/([^/]+)(?:\/([^/]+))?$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
    if (!match || req.method !== 'GET') return send(404, '404 page not found\n');
    const name = mailboxName(decodeURIComponent(match[1]!));
    const items = kept.filter((m) => m.mailbox === name);
    if (match[2] === undefined) return send(200, items.map(headerOf));
    const item = items.find((m) => m.id === decodeURIComponent(match[2]!));
    if (!item) return send(404, '404 page not found\n');
    const shown = {
      ...headerOf(item),
      body: { text: item.text, html: item.html },
      header: item.header,
      attachments: [],
    };
    item.seen = true;
    send(200, shown);
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.httpPort, '127.0.0.1', () => resolve());
  }).catch(async (error: unknown) => {
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    throw error;
  });
  return {
    url: `http://localhost:${options.httpPort}`,
    stop: async () => {
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}
