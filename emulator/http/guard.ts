import { isIP } from 'node:net';
import { InvalidArgumentError } from '../../protocol/errors/errors.js';

/**
 * Who may talk to a running emulator. It is a dev server people leave running, so two things are
 * checked before any handler runs:
 *
 * - the `Host` header: loopback names, IP addresses and the configured host only. A DNS-rebinding
 *   page (a site whose name is made to point at 127.0.0.1) always sends its own name, so it is
 *   refused before it reaches anything;
 * - for the dev endpoints (`/emulator/*`: mailbox, faults, clock, statistics, the dev page), the
 *   `Origin` header: same-origin and the origins the developer allows only, so that a website in
 *   another tab can neither read password-reset links from the mailbox nor inject faults. Requests
 *   without an `Origin` (Node scripts and tests, a typed address, a link followed) are served: a
 *   browser sends `Origin` on every request whose answer a page could read and on every POST,
 *   PUT and DELETE, and the GET endpoints change nothing.
 *
 * The API itself keeps the service's CORS (any origin may call it, as the service allows).
 */

/** The demo's dev server, the origin allowed by default. */
export const DEFAULT_ALLOWED_ORIGINS: readonly string[] = ['http://localhost:5173'];

/** The host name of a `Host` header value, lower-cased, IPv6 without brackets; null when unreadable. */
function hostnameOf(hostHeader: string): string | null {
  try {
    return new URL(`http://${hostHeader}`).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  } catch {
    return null;
  }
}

/** `localhost`, a `*.localhost` name, 127.0.0.0/8 or ::1. */
export function isLoopbackHost(host: string): boolean {
  const name = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    name === '::1' ||
    (isIP(name) === 4 && name.startsWith('127.'))
  );
}

/** The warning for a listening address other machines can reach, or null for a loopback one. */
export function exposureWarning(host: string): string | null {
  if (isLoopbackHost(host)) return null;
  return [
    `Warning: listening on ${host}, which other machines can reach.`,
    'The dev endpoints (/emulator/*: mailbox with sign-in links, faults, clock, statistics) have no authentication, by design:',
    'anyone who can reach this port can read every e-mail and sign in as any user. Use it only on a network you trust, or use --host 127.0.0.1.',
  ].join('\n');
}

/** Checks an origin a developer allows: `scheme://host[:port]`, nothing else. */
export function parseAllowedOrigin(value: string, argument: string): string {
  let origin: string | null = null;
  try {
    const url = new URL(value);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value.replace(/\/$/, ''))
      origin = url.origin;
  } catch {
    origin = null;
  }
  if (origin === null)
    throw new InvalidArgumentError(
      argument,
      `${argument} must be an origin like http://localhost:5173 (scheme, host and port, no path); got "${value}".`,
    );
  return origin;
}

export type DevAccess = { allowed: true; headers: Record<string, string> } | { allowed: false; message: string };

export interface AccessPolicy {
  /** Whether a request with this `Host` header is answered at all. */
  hostAllowed(hostHeader: string | undefined): boolean;
  /** The message of the 403 for a refused `Host`. */
  hostRefusal(hostHeader: string): string;
  /** Whether a dev endpoint serves a request from this origin, and the CORS headers it then carries. */
  devAccess(origin: string | undefined, hostHeader: string | undefined): DevAccess;
}

export function createAccessPolicy(options: { host: string; allowOrigins: readonly string[] }): AccessPolicy {
  const configured = options.host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const allowed = new Set(options.allowOrigins);
  return {
    hostAllowed(hostHeader) {
      // HTTP/1.0 clients may send none; a browser always does.
      if (hostHeader === undefined) return true;
      const name = hostnameOf(hostHeader);
      return name !== null && (isLoopbackHost(name) || isIP(name) !== 0 || name === configured);
    },
    hostRefusal(hostHeader) {
      return `Blocked: this emulator does not answer to the host "${hostHeader}". It answers to localhost, IP addresses and the host it was started with (--host), so that a website cannot reach it by pointing its own name at this machine (DNS rebinding).`;
    },
    devAccess(origin, hostHeader) {
      const vary = { vary: 'origin' };
      if (origin === undefined) return { allowed: true, headers: vary };
      if (hostHeader !== undefined && origin === `http://${hostHeader}`) return { allowed: true, headers: vary };
      if (allowed.has(origin)) {
        return {
          allowed: true,
          headers: {
            ...vary,
            'access-control-allow-origin': origin,
            'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
            'access-control-allow-headers': 'content-type',
            'access-control-max-age': '600',
          },
        };
      }
      return {
        allowed: false,
        message: `The emulator's dev endpoints (/emulator/*) do not serve pages from ${origin}: they hold sign-in links and control the emulator, so only this emulator's own pages and the origins it was started with may use them. To let ${origin} use them, start the emulator with --allow-origin ${origin} (startEmulator: allowOrigins).`,
      };
    },
  };
}
