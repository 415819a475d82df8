/**
 * What a hostile page of the origin does to the broker (benches 11 and 12): its own connections to
 * the broker's SharedWorker, spoken by hand in the wire format with a lifetime lock named as a tab
 * would, and floods of valid calls on them. Every function resolves with epoch times
 * (`performance.timeOrigin`-based), comparable across pages.
 */
import type { PageConfig } from './marks.js';

const LIFE_LOCK = 'bench-hostile-life';
/**
 * The page posts this many calls per task of its own. Tabs of one site may share a process and its main thread
 * (Firefox puts them in one): a page posting for seconds without a break would stall the app's own script there,
 * which no broker can prevent; the bench measures what the broker does.
 */
const POSTS_PER_TASK = 500;
const yieldToOthers = () => new Promise((resolve) => setTimeout(resolve, 0));
const now = () => performance.timeOrigin + performance.now();
const raw = (value: unknown) => ({ type: 'RAW', value });

/** The answers that came back on a set of ports, and when the last did. */
interface Answers {
  count: number;
  at: number[];
  last: number;
}

export interface FloodOutcome {
  /** When the flood's first post went out, and when the last had gone. */
  postingAt: number;
  postedAt: number;
  /** How many calls were posted (a connection the broker refused takes none). */
  posted: number;
  /** When each answer arrived. */
  answeredAt: number[];
  /** Connections the broker refused, and connections it closed (no answer to a call after the flood). */
  refused: number;
  /** How long opening the connections took (ms). */
  connectMillis: number;
}

export function hostileKit(config: PageConfig) {
  const options = {
    baseUrl: config.api,
    projectId: config.projectId,
    publishableClientKey: config.publishableClientKey,
  };
  // The app's worker name (contract/brokerKey.ts), written out: the pages are also built against an older tab side.
  const name = `authbroker:${config.projectId}@${config.api.replace(/\/+$/, '')}`;
  let lifeHeld: Promise<void> | null = null;
  const holdLife = () =>
    (lifeHeld ??= new Promise<void>(
      (held) => void navigator.locks.request(LIFE_LOCK, () => (held(), new Promise(() => undefined))),
    ));
  /** Keeps the SharedWorker objects alive: a collected one may close its entry port. */
  const kept: unknown[] = [];

  /** A new SharedWorker object of the app's worker: a new entry port. */
  const newEntry = (): MessagePort => {
    const worker = new SharedWorker('/broker-worker.js', { type: 'module', name });
    kept.push(worker);
    worker.port.start();
    return worker.port;
  };

  /** Connects once over `entry`: the API port, or null when the broker refused. */
  const connect = (entry: MessagePort): Promise<MessagePort | null> => {
    const { port1: listener, port2: brokerSide } = new MessageChannel();
    kept.push(listener);
    listener.start();
    const id = `connect-${crypto.randomUUID()}`;
    return new Promise((resolve) => {
      const onMessage = (event: MessageEvent) => {
        const data = event.data as { id?: string; value?: unknown };
        if (data?.id !== id) return;
        entry.removeEventListener('message', onMessage);
        resolve(data.value instanceof MessagePort ? data.value : null);
      };
      entry.addEventListener('message', onMessage);
      entry.postMessage(
        {
          id,
          type: 'APPLY',
          path: ['connect'],
          argumentList: [raw(options), raw({ version: '', lockName: LIFE_LOCK }), raw(brokerSide)],
        },
        [brokerSide],
      );
    });
  };

  /** Every answer on `port` counted into `answers`. */
  const listen = (port: MessagePort, answers: Answers) => {
    port.addEventListener('message', () => {
      answers.count++;
      answers.last = now();
      answers.at.push(answers.last);
    });
    port.start();
  };

  /** Until `expected` answers came, or none for `quietMillis`. */
  const settled = (answers: Answers, expected: number, quietMillis: number) =>
    new Promise<void>((resolve) => {
      const check = () =>
        answers.count >= expected || now() - answers.last >= quietMillis ? resolve() : void setTimeout(check, 50);
      check();
    });

  const post = (port: MessagePort, method: string, args: unknown[], id: string) =>
    port.postMessage({ id, type: 'APPLY', path: [method], argumentList: args.map(raw) });

  return {
    /**
     * `ports` connections, `portsPerEntry` through each new SharedWorker object (1: a SharedWorker object per
     * connection), then `perPort` status() calls posted on each at once.
     */
    async floodPorts(
      ports: number,
      perPort: number,
      portsPerEntry: number,
      quietMillis: number,
    ): Promise<FloodOutcome> {
      await holdLife();
      const connectStart = now();
      const apis: MessagePort[] = [];
      let refused = 0;
      let entry: MessagePort | null = null;
      for (let i = 0; i < ports; i++) {
        if (i % portsPerEntry === 0) entry = newEntry();
        const api = await connect(entry!);
        if (api === null) refused++;
        else apis.push(api);
      }
      const connectMillis = now() - connectStart;
      const answers: Answers = { count: 0, at: [], last: now() };
      for (const api of apis) listen(api, answers);
      const postingAt = now();
      let posted = 0;
      for (let p = 0; p < apis.length; p++)
        for (let i = 0; i < perPort; i++) {
          post(apis[p]!, 'status', [], `flood-${p}-${i}`);
          if (++posted % POSTS_PER_TASK === 0) await yieldToOthers();
        }
      const postedAt = now();
      answers.last = postedAt;
      await settled(answers, apis.length * perPort, quietMillis);
      return { postingAt, postedAt, posted: apis.length * perPort, answeredAt: answers.at, refused, connectMillis };
    },

    /** `rounds` times: a new SharedWorker object, a connection over it, `perRound` status() calls posted at once. */
    async connectLoop(rounds: number, perRound: number, quietMillis: number): Promise<FloodOutcome> {
      await holdLife();
      const answers: Answers = { count: 0, at: [], last: now() };
      const postingAt = now();
      let posted = 0;
      let refused = 0;
      for (let round = 0; round < rounds; round++) {
        const api = await connect(newEntry());
        if (api === null) {
          refused++;
          continue;
        }
        listen(api, answers);
        for (let i = 0; i < perRound; i++) {
          post(api, 'status', [], `loop-${round}-${i}`);
          if (++posted % POSTS_PER_TASK === 0) await yieldToOthers();
        }
      }
      const postedAt = now();
      answers.last = postedAt;
      await settled(answers, posted, quietMillis);
      return { postingAt, postedAt, posted, answeredAt: answers.at, refused, connectMillis: 0 };
    },

    /**
     * `reads` reads of distinct teams (made-up ids: each is a request to the service), spread over `ports`
     * connections, all asked at once. Resolves when each has its answer (or after `timeoutMillis`).
     */
    async manyReads(
      ports: number,
      reads: number,
      timeoutMillis: number,
    ): Promise<{ askedAt: number; answered: number; failedWith: Record<string, number>; lastAt: number }> {
      await holdLife();
      const apis: MessagePort[] = [];
      for (let i = 0; i < ports; i++) {
        const api = await connect(newEntry());
        if (api !== null) apis.push(api);
      }
      const failedWith: Record<string, number> = {};
      const answers: Answers = { count: 0, at: [], last: now() };
      for (const api of apis)
        api.addEventListener('message', (event: MessageEvent) => {
          const data = event.data as { type?: string; value?: { authbroker?: { code?: string } } };
          if (data?.type === 'HANDLER') {
            const code = data.value?.authbroker?.code ?? 'other';
            failedWith[code] = (failedWith[code] ?? 0) + 1;
          }
          answers.count++;
          answers.last = now();
        });
      for (const api of apis) api.start();
      const askedAt = now();
      for (let i = 0; i < reads; i++) {
        const teamId = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
        post(apis[i % apis.length]!, 'read', [{ kind: 'team', teamId }], `read-${i}`);
      }
      await new Promise<void>((resolve) => {
        const check = () =>
          answers.count >= reads || now() - askedAt >= timeoutMillis ? resolve() : void setTimeout(check, 100);
        check();
      });
      return { askedAt, answered: answers.count, failedWith, lastAt: answers.last };
    },
  };
}
