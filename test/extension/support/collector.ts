import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A context of the extension that said hello: which kind, and its own instance id. */
export interface DriverContext {
  context: string;
  instance: string;
  href: string;
  at: number;
}

/**
 * The loopback collector the demo extension's test driver talks to (demo-extension/src/testDriver.ts):
 * contexts say hello, long-poll for commands, and post results. Bounded: a poll is answered empty
 * after 10 s, and the server stops with the test file.
 */
export interface Collector {
  url: string;
  /** The newest context of a kind that said hello (waiting for one, up to `timeoutMillis`). */
  context(kind: string, options?: { after?: number; timeoutMillis?: number }): Promise<DriverContext>;
  /** Runs a command in a context and resolves with its answer (rejects with its error). */
  run<T = unknown>(
    target: DriverContext,
    op: string,
    args?: Record<string, unknown>,
    timeoutMillis?: number,
  ): Promise<T>;
  /** Every hello so far. */
  hellos(): DriverContext[];
  close(): Promise<void>;
}

const POLL_MILLIS = 10_000;

async function body(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
}

export async function startCollector(): Promise<Collector> {
  const contexts: DriverContext[] = [];
  const helloWaiters = new Set<() => void>();
  const queues = new Map<string, Array<{ id: string; op: string; args?: Record<string, unknown> }>>();
  const pollers = new Map<string, (command: unknown) => void>();
  const results = new Map<string, { resolve(value: unknown): void; reject(error: Error): void }>();
  let lastId = 0;

  const send = (response: ServerResponse, value: unknown) => {
    response.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
    response.end(JSON.stringify(value));
  };
  const deliver = (instance: string) => {
    const queue = queues.get(instance);
    const poller = pollers.get(instance);
    if (!queue?.length || !poller) return;
    pollers.delete(instance);
    poller(queue.shift()!);
  };

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method === 'OPTIONS') {
      response.writeHead(204, {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, POST',
        'access-control-allow-headers': 'content-type',
      });
      return response.end();
    }
    if (url.pathname === '/hello' && request.method === 'POST') {
      void body(request).then((hello) => {
        contexts.push(hello as DriverContext);
        helloWaiters.forEach((wake) => wake());
        send(response, null);
      });
      return;
    }
    if (url.pathname === '/next') {
      const instance = url.searchParams.get('instance') ?? '';
      const timer = setTimeout(() => {
        if (pollers.get(instance) === answer) pollers.delete(instance);
        send(response, null);
      }, POLL_MILLIS);
      const answer = (command: unknown) => {
        clearTimeout(timer);
        send(response, command);
      };
      pollers.set(instance, answer);
      request.on('close', () => {
        if (pollers.get(instance) === answer) pollers.delete(instance);
        clearTimeout(timer);
      });
      deliver(instance);
      return;
    }
    if (url.pathname === '/result' && request.method === 'POST') {
      void body(request).then((raw) => {
        const result = raw as { id: string; value?: unknown; error?: { message: string; code: string | null } };
        const waiting = results.get(result.id);
        results.delete(result.id);
        if (result.error) waiting?.reject(Object.assign(new Error(result.error.message), { code: result.error.code }));
        else waiting?.resolve(result.value);
        send(response, null);
      });
      return;
    }
    response.writeHead(404, { 'access-control-allow-origin': '*' });
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    hellos: () => [...contexts],
    context(kind, { after = 0, timeoutMillis = 20_000 } = {}) {
      const find = () => [...contexts].reverse().find((c) => c.context === kind && c.at >= after);
      return new Promise((resolve, reject) => {
        const found = find();
        if (found) return resolve(found);
        const timer = setTimeout(() => {
          helloWaiters.delete(wake);
          reject(
            new Error(
              `No ${kind} context said hello within ${timeoutMillis} ms (hellos: ${contexts.map((c) => c.context).join(', ') || 'none'}).`,
            ),
          );
        }, timeoutMillis);
        const wake = () => {
          const now = find();
          if (!now) return;
          clearTimeout(timer);
          helloWaiters.delete(wake);
          resolve(now);
        };
        helloWaiters.add(wake);
      });
    },
    run(target, op, args = {}, timeoutMillis = 20_000) {
      const id = `${++lastId}`;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          results.delete(id);
          reject(new Error(`${target.context}.${op} did not answer within ${timeoutMillis} ms.`));
        }, timeoutMillis);
        results.set(id, {
          resolve: (value) => {
            clearTimeout(timer);
            resolve(value as never);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
        const queue = queues.get(target.instance) ?? [];
        queue.push({ id, op, args });
        queues.set(target.instance, queue);
        deliver(target.instance);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const poller of pollers.values()) poller(null);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
