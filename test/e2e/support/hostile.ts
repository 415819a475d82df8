import type { Page } from 'playwright-core';
import type { Stage } from './scenario.js';
import { DEMO } from './ui.js';

/**
 * What a hostile page sends (the measurements): a structure repeating one inner object
 * (`n = [n, n]`, 60 deep: 61 objects once cloned), five million numbers, a million keys, strings of
 * a megabyte each, and nothing at all.
 */
export type Payload =
  'none' | 'sharedTwice' | 'metadataSharedTwice' | 'fiveMillion' | 'millionKeys' | 'megabyteStrings';

/** A reply on a port, as the broker's server sends it (or 'no answer'). */
export interface Reply {
  type?: string;
  name?: string;
  value?: { authbroker?: { code?: string; argument?: string } };
}

declare global {
  interface Window {
    __hostile: {
      /** Opens a connection of its own to the broker's SharedWorker with this hello; returns its number. */
      connect(hello: Record<string, unknown>): Promise<number>;
      /**
       * Connects with a config of its own (the app's, changed by `changes`) through the SharedWorker
       * (by default under the name of the config's service and project; `'app'`: the app's worker;
       * `{ name }`: a worker under a name of the page's own choosing) or the service worker: the
       * connection's number, or the broker's refusal.
       */
      connectAs(
        changes: Record<string, unknown>,
        hello: Record<string, unknown>,
        via?: 'shared-worker' | 'app' | 'service-worker' | { name: string },
      ): Promise<number | Reply>;
      /**
       * Opens `ports` connections, each through a SharedWorker object of its own, and posts `perPort` calls of `method`
       * on each, 500 per task of the page; resolves when the posting ended (epoch ms). `floodAnswered()` then gives when
       * each answer arrived.
       */
      floodPorts(
        ports: number,
        perPort: number,
        method: string,
      ): Promise<{ postingAt: number; postedAt: number; refused: number }>;
      /**
       * Calls a method on connection `index` with the arguments of one of the kit's payloads (built in the page), or
       * with arguments of its own.
       */
      call(
        index: number,
        method: string,
        payload: Payload | { args: unknown[] },
        timeoutMillis?: number,
      ): Promise<Reply | 'no answer'>;
      /**
       * Posts `count` calls of `method` (no arguments) on connection `index` at once, without waiting
       * for answers; with `holdFirst`, first a call the broker must read before anything else (a
       * million keys: a second or more of the browser's deserialization on the broker's thread), so
       * that the whole flood waits in its queue. Resolves when the posting ended (epoch ms,
       * `performance.timeOrigin`-based, comparable across pages); `floodAnswered()` resolves with when
       * each answer arrived, once all have.
       */
      flood(
        index: number,
        method: string,
        count: number,
        holdFirst?: boolean,
      ): Promise<{ postingAt: number; postedAt: number }>;
      /** When each answer arrived: once all have, or (`quietMillis`) once none came for that long. */
      floodAnswered(quietMillis?: number): Promise<number[]>;
      config: { baseUrl: string; projectId: string };
      workerName: string;
    };
    __reads: {
      stop(): Promise<{ delays: number[]; failures: number; reads: Array<[startedAt: number, millis: number]> }>;
    };
  }
}

/** A signed-in tab of the app with its user read (so cached), and a tab of the origin with the hostile kit. */
export async function appAndHostilePage(stage: Stage): Promise<{ app: Page; hostile: Page }> {
  const context = await stage.newContext();
  const app = await stage.openTab(context);
  await app.evaluate((d) => window.__authbroker.signInWithPassword(d), DEMO);
  await app.evaluate(() => window.__authbroker.read({ kind: 'currentUser' }));
  const hostile = await stage.openTab(context, '/');
  await installHostileKit(hostile, await brokerScriptUrl(stage));
  return { app, hostile };
}

/** The SharedWorker's script URL, as any page of the origin could learn it. */
export async function brokerScriptUrl(stage: Stage): Promise<string> {
  const { targetInfos } = await (await stage.cdp()).send('Target.getTargets');
  return targetInfos.find((t) => t.type === 'shared_worker' && t.url.startsWith(stage.demo.url))!.url;
}

/**
 * Gives a page of the app's origin the means of a hostile page: its own ports to the broker, spoken
 * by hand (Comlink's wire format), with a listener port it never answers on.
 */
export async function installHostileKit(page: Page, workerUrl: string): Promise<void> {
  await page.evaluate(async (url) => {
    const config = (await (await fetch('/demo-config.json')).json()) as { baseUrl: string; projectId: string };
    const workerName = `authbroker:${config.projectId}@${config.baseUrl.replace(/\/+$/, '')}`;
    const connections: MessagePort[] = [];
    const keep: unknown[] = [];
    const ask = (
      port: MessagePort,
      message: Record<string, unknown>,
      transfer: Transferable[] = [],
      timeoutMillis = 10_000,
    ) =>
      new Promise<unknown>((resolve) => {
        const id = crypto.randomUUID();
        const timer = setTimeout(() => resolve('no answer'), timeoutMillis);
        const onMessage = (event: MessageEvent) => {
          if ((event.data as { id?: string })?.id !== id) return;
          port.removeEventListener('message', onMessage);
          clearTimeout(timer);
          resolve(event.data);
        };
        port.addEventListener('message', onMessage);
        port.start();
        port.postMessage({ ...message, id }, transfer);
      });
    const raw = (value: unknown) => ({ type: 'RAW', value });
    let floodAnswered: Promise<number[]> = Promise.resolve([]);
    let floodQuiet = (_quietMillis: number): Promise<number[]> => Promise.resolve([]);
    window.__hostile = {
      config,
      workerName,
      async connect(hello) {
        const worker = new SharedWorker(url, { type: 'module', name: workerName });
        const { port1: listener, port2: brokerSide } = new MessageChannel();
        keep.push(worker, listener);
        const reply = (await ask(
          worker.port,
          {
            type: 'APPLY',
            path: ['connect'],
            argumentList: [raw(config), raw({ version: '', tabId: crypto.randomUUID(), ...hello }), raw(brokerSide)],
          },
          [brokerSide],
        )) as { value: MessagePort };
        connections.push(reply.value);
        return connections.length - 1;
      },
      async connectAs(changes, hello, via = 'shared-worker') {
        const asked = { ...config, ...changes } as { baseUrl: string; projectId: string; tokenStore?: string };
        let entry: MessagePort;
        if (via !== 'service-worker') {
          const worker = new SharedWorker(url, {
            type: 'module',
            name:
              typeof via === 'object'
                ? via.name
                : via === 'app'
                  ? workerName
                  : `authbroker:${asked.projectId}@${asked.baseUrl.replace(/\/+$/, '')}${asked.tokenStore === 'memory' ? ';tokens=memory' : ''}`,
          });
          keep.push(worker);
          entry = worker.port;
        } else {
          const registration = await navigator.serviceWorker.register('/authbroker-sw.js', { type: 'module' });
          await navigator.serviceWorker.ready;
          const { port1, port2 } = new MessageChannel();
          registration.active!.postMessage({ type: 'authbroker:connect' }, [port2]);
          entry = port1;
        }
        const { port1: listener, port2: brokerSide } = new MessageChannel();
        keep.push(listener);
        const reply = (await ask(
          entry,
          {
            type: 'APPLY',
            path: ['connect'],
            argumentList: [raw(asked), raw({ version: '', tabId: crypto.randomUUID(), ...hello }), raw(brokerSide)],
          },
          [brokerSide],
        )) as Reply & { value: unknown };
        if (!(reply.value instanceof MessagePort)) return reply;
        connections.push(reply.value);
        return connections.length - 1;
      },
      flood(index, method, count, holdFirst = false) {
        const port = connections[index]!;
        const answeredAt: number[] = [];
        const now = () => performance.timeOrigin + performance.now();
        let lastAnswerAt = now();
        floodAnswered = new Promise((resolve) => {
          port.addEventListener('message', function onAnswer(event: MessageEvent) {
            if (!String((event.data as { id?: string })?.id).startsWith('flood-')) return;
            lastAnswerAt = now();
            answeredAt.push(lastAnswerAt);
            if (answeredAt.length < count) return;
            port.removeEventListener('message', onAnswer);
            resolve(answeredAt);
          });
        });
        floodQuiet = (quietMillis) =>
          new Promise((resolve) => {
            const check = () => (now() - lastAnswerAt >= quietMillis ? resolve(answeredAt) : setTimeout(check, 50));
            check();
          });
        port.start();
        const postingAt = now();
        if (holdFirst) {
          const millionKeys = Object.fromEntries(Array.from({ length: 1_000_000 }, (_, i) => [`k${i}`, i]));
          port.postMessage({
            id: 'hold',
            type: 'APPLY',
            path: ['updateUser'],
            argumentList: [raw({ clientMetadata: millionKeys })],
          });
        }
        for (let i = 0; i < count; i++)
          port.postMessage({ id: `flood-${i}`, type: 'APPLY', path: [method], argumentList: [] });
        return Promise.resolve({ postingAt, postedAt: now() });
      },
      async floodPorts(ports, perPort, method) {
        const apis: MessagePort[] = [];
        let refused = 0;
        for (let i = 0; i < ports; i++) {
          const index = await window.__hostile.connect({ lockName: 'hostile-life' }).catch(() => -1);
          if (index < 0 || !(connections[index] instanceof MessagePort)) refused++;
          else apis.push(connections[index]);
        }
        const answeredAt: number[] = [];
        const now = () => performance.timeOrigin + performance.now();
        let lastAnswerAt = now();
        const expected = apis.length * perPort;
        floodAnswered = new Promise((resolve) => {
          for (const port of apis) {
            port.addEventListener('message', (event: MessageEvent) => {
              if (!String((event.data as { id?: string })?.id).startsWith('flood-')) return;
              lastAnswerAt = now();
              answeredAt.push(lastAnswerAt);
              if (answeredAt.length === expected) resolve(answeredAt);
            });
            port.start();
          }
        });
        floodQuiet = (quietMillis) =>
          new Promise((resolve) => {
            const check = () => (now() - lastAnswerAt >= quietMillis ? resolve(answeredAt) : setTimeout(check, 50));
            check();
          });
        const postingAt = now();
        let posted = 0;
        for (let p = 0; p < apis.length; p++)
          for (let i = 0; i < perPort; i++) {
            apis[p]!.postMessage({ id: `flood-${p}-${i}`, type: 'APPLY', path: [method], argumentList: [] });
            if (++posted % 500 === 0) await new Promise((resolve) => setTimeout(resolve, 0));
          }
        lastAnswerAt = now();
        return { postingAt, postedAt: now(), refused };
      },
      floodAnswered: (quietMillis) =>
        quietMillis === undefined ? floodAnswered : Promise.race([floodAnswered, floodQuiet(quietMillis)]),
      async call(index, method, payload, timeoutMillis) {
        const sharedTwice = () => {
          let n: unknown = 0;
          for (let i = 0; i < 60; i++) n = [n, n];
          return n;
        };
        const megabyte = 'x'.repeat(1_000_000);
        const payloads: Record<Payload, () => unknown[]> = {
          none: () => [],
          sharedTwice: () => [sharedTwice()],
          metadataSharedTwice: () => [{ clientMetadata: sharedTwice() }],
          fiveMillion: () => [{ clientMetadata: new Array(5_000_000).fill(0) }],
          millionKeys: () => [
            { clientMetadata: Object.fromEntries(Array.from({ length: 1_000_000 }, (_, i) => [`k${i}`, i])) },
          ],
          megabyteStrings: () => [{ clientMetadata: Array.from({ length: 200 }, (_, i) => `${i}${megabyte}`) }],
        };
        const args = typeof payload === 'string' ? payloads[payload]() : payload.args;
        return (await ask(
          connections[index]!,
          { type: 'APPLY', path: [method], argumentList: args.map(raw) },
          [],
          timeoutMillis,
        )) as Reply | 'no answer';
      },
    };
  }, workerUrl);
}

/**
 * Starts reading a cached query in the app's page, back to back or `pauseMillis` apart (as a page
 * that reads now and then, rather than a load of its own); `window.__reads.stop()` gives each read's time.
 */
export async function startReading(page: Page, pauseMillis = 0): Promise<void> {
  await page.evaluate((pause) => {
    const delays: number[] = [];
    const reads: Array<[number, number]> = [];
    let failures = 0;
    let running = true;
    const loop = (async () => {
      while (running) {
        const started = performance.now();
        try {
          await window.__authbroker.read({ kind: 'currentUser' });
        } catch {
          failures += 1;
        }
        const millis = performance.now() - started;
        delays.push(millis);
        reads.push([performance.timeOrigin + started, millis]);
        if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
      }
    })();
    window.__reads = {
      async stop() {
        running = false;
        await loop;
        return { delays, failures, reads };
      },
    };
  }, pauseMillis);
}

export const refused = (reply: Reply | 'no answer') =>
  reply !== 'no answer' &&
  reply.type === 'HANDLER' &&
  reply.name === 'throw' &&
  reply.value?.authbroker?.code === 'INVALID_ARGUMENT';
