import type { IncomingMessage } from 'node:http';
import { createKnownError } from '../../protocol/errors/create.js';
import { StatusError } from '../errors.js';

export const MAX_BODY_BYTES = 1024 * 1024;

/** Reads the body, refusing anything over 1 MB before buffering it all. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES)
    throw new StatusError(413, `Request body too large: the limit is ${MAX_BODY_BYTES} bytes.`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES)
      throw new StatusError(413, `Request body too large: the limit is ${MAX_BODY_BYTES} bytes.`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Parses by media type, exactly as PROTOCOL.md §1.5 lists. */
export function parseBody(contentType: string | undefined, raw: Buffer): unknown {
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType === '') return undefined;
  if (mediaType === 'application/octet-stream') return new Uint8Array(raw);
  let textBody: string;
  try {
    textBody = utf8.decode(raw);
  } catch {
    throw createKnownError('BODY_PARSING_ERROR', { message: 'Request body cannot be parsed as UTF-8' });
  }
  switch (mediaType) {
    case 'application/json':
      try {
        return JSON.parse(textBody) as unknown;
      } catch {
        throw createKnownError('BODY_PARSING_ERROR', { message: 'Invalid JSON in request body' });
      }
    case 'application/x-www-form-urlencoded': {
      const out: Record<string, string> = Object.create(null) as Record<string, string>;
      for (const [key, value] of new URLSearchParams(textBody)) out[key] = value;
      return { ...out };
    }
    case 'text/plain':
      return textBody;
    default:
      throw createKnownError('BODY_PARSING_ERROR', { message: `Unknown content type in request body: ${mediaType}` });
  }
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (name === '__proto__' || name === 'constructor') continue;
    cookies[name] = decodeURIComponent(part.slice(eq + 1).trim());
  }
  return cookies;
}
