import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openServiceWorker } from '../../client/connect/hosts/serviceWorkerHost.js';
import { workerName } from '../../client/connectOptions.js';
import { tabErrors } from '../../client/connect/tabErrors.js';
import { ClientError } from '../../protocol/errors/errors.js';

/** A loopback server standing in for a dev server: the app's page for unknown paths, as Vite does. */
let server: Server;
let origin = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/broker.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      res.end('self.addEventListener("message", () => {});');
    } else if (req.url === '/gone.js') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Not found');
    } else {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><div id="root"></div>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const options = (serviceWorker: string) => ({
  baseUrl: 'http://127.0.0.1:1',
  projectId: '00000000-0000-4000-8000-000000000001',
  publishableClientKey: 'pck_x',
  serviceWorker,
  connectTimeoutMillis: 1000,
});
const hello = { tabId: 'tab', version: '0.1.0' };
const listener = { deliver: () => undefined };

async function failureOf(serviceWorker: string): Promise<Error> {
  try {
    const target = options(serviceWorker);
    await openServiceWorker(
      {
        options: target,
        baseUrl: target.baseUrl,
        name: workerName(target),
        modes: ['service-worker'],
        errors: tabErrors,
        again: () => Promise.reject(new Error('not used: the connection fails')),
      },
      hello,
      listener,
    );
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected openServiceWorker to fail');
}

describe('the service-worker fallback checks its script before registering it', () => {
  it('a script answered with the app page (200 text/html) is named as not JavaScript, with the fix', async () => {
    const error = await failureOf(`${origin}/authbroker-service-worker.js`);
    expect(error).toBeInstanceOf(ClientError);
    expect((error as ClientError).code).toBe('BROKER_UNAVAILABLE');
    expect(error.message).toContain(
      `${origin}/authbroker-service-worker.js is not JavaScript (content-type: text/html)`,
    );
    expect(error.message).toContain("authbroker() plugin from 'authbroker/vite'");
  });

  it('a missing script says its HTTP status', async () => {
    const error = await failureOf(`${origin}/gone.js`);
    expect(error).toBeInstanceOf(ClientError);
    expect(error.message).toContain(`${origin}/gone.js answered HTTP 404`);
  });

  it('a JavaScript script passes the check and goes on to registration', async () => {
    // jsdom has no service workers, so registering is what fails here, not the check.
    const error = await failureOf(`${origin}/broker.js`);
    expect(error.message).not.toMatch(/not JavaScript|answered HTTP/);
  });
});
