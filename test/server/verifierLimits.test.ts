import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { HttpStatusError } from '../../protocol/errors/errors.js';
import { isKnownError } from '../../protocol/errors/knownError.js';
import { createAccessTokenVerifier } from '../../protocol/server.js';

/**
 * The verifier against a key-set server of our own (so that it can fail on demand and count what it
 * is asked), with a fake clock: it backs off after a failed key-set fetch, bounds a token's size
 * before reading it, and refuses what the service refuses even when the project's key signed it.
 */
const PROJECT = randomUUID();

interface KeySetServer {
  baseUrl: string;
  requests: number;
  /** The status it answers (200: the key set). */
  status: number;
  close(): Promise<void>;
}

let server: KeySetServer;
let signingKey: CryptoKey;
let kid: string;

async function startKeySetServer(jwk: JWK): Promise<KeySetServer> {
  const state = { requests: 0, status: 200 };
  const http: Server = createServer((req, res) => {
    if (req.url?.startsWith(`/api/v1/projects/${PROJECT}/.well-known/jwks.json`) !== true) {
      res.writeHead(404).end();
      return;
    }
    state.requests += 1;
    if (state.status !== 200) {
      res.writeHead(state.status, { 'content-type': 'text/plain' }).end('Service Unavailable');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    get requests() {
      return state.requests;
    },
    set requests(value) {
      state.requests = value;
    },
    get status() {
      return state.status;
    },
    set status(value) {
      state.status = value;
    },
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  signingKey = pair.privateKey;
  kid = randomUUID();
  server = await startKeySetServer({ ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256', use: 'sig' });
});
afterAll(() => server.close());
afterEach(() => {
  server.status = 200;
  vi.useRealTimers();
});

/** The claims of a token of the project's, as the service at `server` signs them. */
function claims(overrides: JWTPayload = {}): JWTPayload {
  return {
    sub: randomUUID(),
    aud: PROJECT,
    iss: `${server.baseUrl}/api/v1/projects/${PROJECT}`,
    exp: Math.floor(Date.now() / 1000) + 600,
    refresh_token_id: randomUUID(),
    is_anonymous: false,
    is_restricted: false,
    restricted_reason: null,
    ...overrides,
  };
}

function sign(payload: JWTPayload, key = signingKey, keyId = kid): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid: keyId }).sign(key);
}

/** A token signed by a key the project does not have (a made-up key id). */
async function strangerToken(): Promise<string> {
  const { privateKey } = await generateKeyPair('ES256');
  return sign(claims(), privateKey, randomUUID());
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

function verifierAt(clock: { now: () => number }, baseUrl = server.baseUrl) {
  return createAccessTokenVerifier({ baseUrl, projectId: PROJECT, clock });
}

describe('after a failed key-set fetch', () => {
  it('a stream of tokens with unknown key ids makes one request per wait, not one each, and recovers', async () => {
    server.requests = 0;
    server.status = 503;
    let now = Date.now();
    const verify = verifierAt({ now: () => now });
    const tokens = await Promise.all(Array.from({ length: 50 }, strangerToken));
    for (const token of tokens) {
      const error = await rejectionOf(verify(token));
      expect(error).toBeInstanceOf(HttpStatusError);
      expect((error as HttpStatusError).status).toBe(503);
    }
    expect(server.requests).toBe(1);
    // The wait doubles from 1 s while the failures go on.
    now += 1000;
    for (const token of tokens.slice(0, 20)) await rejectionOf(verify(token));
    expect(server.requests).toBe(2);
    now += 1999;
    await rejectionOf(verify(tokens[0]!));
    expect(server.requests).toBe(2);
    now += 1;
    await rejectionOf(verify(tokens[0]!));
    expect(server.requests).toBe(3);
    // Back: once the wait is over, the key set is read and a good token verifies.
    server.status = 200;
    now += 4000;
    const good = await sign(claims());
    expect((await verify(good)).projectId).toBe(PROJECT);
    expect(server.requests).toBe(4);
  });

  it('with the key set cached, past jose’s 30 s between refetches, unknown key ids cause one failing request, not one each', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    server.requests = 0;
    const verify = createAccessTokenVerifier({ baseUrl: server.baseUrl, projectId: PROJECT });
    const good = await sign(claims({ exp: Math.floor(Date.now() / 1000) + 3600 }));
    await verify(good);
    expect(server.requests).toBe(1);
    server.status = 503;
    vi.setSystemTime(Date.now() + 31_000);
    for (let i = 0; i < 30; i++)
      expect(await rejectionOf(verify(await strangerToken()))).toBeInstanceOf(HttpStatusError);
    expect(server.requests).toBe(2);
    // Tokens of the keys it holds go on verifying meanwhile.
    expect((await verify(good)).projectId).toBe(PROJECT);
    expect(server.requests).toBe(2);
  });
});

describe("the token's size", () => {
  it('refuses a token over 16 KiB before reading it, even one the project signed', async () => {
    server.requests = 0;
    const verify = verifierAt({ now: () => Date.now() });
    const padded = await sign(claims({ note: 'x'.repeat(16 * 1024) }));
    expect(padded.length).toBeGreaterThan(16 * 1024);
    const error = await rejectionOf(verify(padded));
    expect(isKnownError(error, 'UNPARSABLE_ACCESS_TOKEN')).toBe(true);
    expect((error as Error).message).toMatch(/at most 16384/);
    expect(server.requests).toBe(0);
    // A token of 64 MB is refused at once.
    const huge = `${'a'.repeat(32 * 1024 * 1024)}.${'b'.repeat(32 * 1024 * 1024)}.c`;
    const started = performance.now();
    expect(isKnownError(await rejectionOf(verify(huge)), 'UNPARSABLE_ACCESS_TOKEN')).toBe(true);
    expect(performance.now() - started).toBeLessThan(100);
    // The service's own tokens are far under the bound.
    expect((await verify(await sign(claims()))).projectId).toBe(PROJECT);
  });
});

describe('tokens the service refuses, signed with the project’s key', () => {
  const verify = () => verifierAt({ now: () => Date.now() });
  const refused = async (token: Promise<string>, allow = {}) => {
    const error = await rejectionOf(verify()(await token, allow));
    expect(isKnownError(error, 'UNPARSABLE_ACCESS_TOKEN'), String(error)).toBe(true);
    return error as Error;
  };

  it('a restricted user’s claims under the project’s own audience, whatever is allowed', async () => {
    const restricted = claims({ is_restricted: true, restricted_reason: { type: 'email_not_verified' } });
    await refused(sign(restricted));
    await refused(sign(restricted), { allowRestricted: true });
  });

  it('an issuer on another host, scheme or port', async () => {
    const port = new URL(server.baseUrl).port;
    for (const iss of [
      `https://evil.example/api/v1/projects/${PROJECT}`,
      `https://127.0.0.1:${port}/api/v1/projects/${PROJECT}`,
      `http://127.0.0.1:1/api/v1/projects/${PROJECT}`,
    ]) {
      const error = await refused(sign(claims({ iss })));
      expect(error.message).toContain('another service than');
    }
    // The same machine under another loopback name is the same service (an emulator announced as localhost).
    const local = await sign(claims({ iss: `http://localhost:${port}/api/v1/projects/${PROJECT}` }));
    expect((await verify()(local)).projectId).toBe(PROJECT);
  });

  it('a token without an expiry', async () => {
    const { exp: _, ...noExpiry } = claims();
    await refused(sign(noExpiry));
  });
});
