/** The authbroker bench page: the SharedWorker broker, the React hooks, and the RPC timing loop. */
import { scriptStart } from './t0.js';
import { useLayoutEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrokerClient, type BrokerClient } from '../../client/index.js';
import { AuthProvider, useContactChannels, useQuery, useTeams, useUserState } from '../../client/react/index.js';
import { marks, readConfig, Screen, settle } from './common.js';
import { hostileKit } from './hostile.js';
import { appFetchKit, appRequestsOption } from './appFetch.js';
import { offlineWritesKit, offlineWritesOption } from './offlineWrites.js';
import { ConnectivityBanner, connectivityKit, showConnectivityBanner } from './connectivity.js';

Object.assign(marks, scriptStart);

const config = readConfig();
// ?persist=0: without the copy of the last visit (the comparison row of benchmark 4).
const persistSnapshot = new URLSearchParams(location.search).get('persist') !== '0';
const options = {
  baseUrl: config.api,
  projectId: config.projectId,
  publishableClientKey: config.publishableClientKey,
  sharedWorker: '/broker-worker.js',
  persistSnapshot,
  // ?appApi=<origin> (benchmark 13): client.fetch may send the user's token there.
  ...appRequestsOption(),
  // ?offlineWrites=1 (benchmark 14): writes made while the service is away are kept and sent on its return.
  ...offlineWritesOption(),
};
const client = createBrokerClient(options);
// When the connection was there: from the client's own User Timing mark, read by the harness (a
// connect() call here would start the connection before the first render).
Object.defineProperty(marks, 'connected', {
  enumerable: true,
  get: () => performance.getEntriesByName('authbroker:connected')[0]?.startTime,
});

function App() {
  // The state, not useUser(): without the kept copy, useUser() would suspend the whole screen.
  const { status, user } = useUserState();
  const teams = useTeams();
  const channels = useContactChannels();
  const teamsState = useQuery({ kind: 'teams' });
  const channelsState = useQuery({ kind: 'contactChannels' });
  return (
    <Screen
      user={user ? { email: user.primaryEmail, name: user.displayName } : null}
      signedOut={status === 'signed-out'}
      teams={teamsState.isLoading ? null : teams.map((t) => t.displayName)}
      channels={channelsState.isLoading ? null : channels.map((c) => c.value)}
    />
  );
}

// ?apiKeys=1 (fan-in's API-keys row): the user's own API keys too, as an app's key settings show them.
const showApiKeys = new URLSearchParams(location.search).get('apiKeys') === '1';
function ApiKeys() {
  const keys = useQuery({ kind: 'userApiKeys' });
  useLayoutEffect(() => {
    if (keys.data !== undefined && marks.apiKeys === undefined) marks.apiKeys = performance.now();
  });
  return <p>{keys.data === undefined ? 'loading keys' : `${keys.data.length} key(s)`}</p>;
}

// ?payments=1 (fan-in's payments row): the user's credits and products too, as an app's shop shows them.
const showPayments = new URLSearchParams(location.search).get('payments') === '1';
// The queries themselves (as `useItem` and `useProducts` ask them), so that the page also builds on the bench's
// earlier library copy.
function Payments() {
  const userId = useUserState().user?.id;
  const customer = userId === undefined ? null : ({ customerType: 'user', customerId: userId } as const);
  const credits = useQuery(customer === null ? null : { kind: 'item', ...customer, itemId: 'credits' });
  const products = useQuery(customer === null ? null : { kind: 'products', ...customer });
  useLayoutEffect(() => {
    if (credits.data != null && products.data !== undefined && marks.payments === undefined)
      marks.payments = performance.now();
  });
  return (
    <p>
      {credits.data == null
        ? 'loading credits'
        : `${credits.data.quantity} credits, ${products.data?.items.length ?? '…'} product(s)`}
    </p>
  );
}

if (config.mode === 'hooks') {
  createRoot(document.getElementById('root')!).render(
    <AuthProvider client={client}>
      <App />
      {showApiKeys && <ApiKeys />}
      {showPayments && <Payments />}
      {showConnectivityBanner && <ConnectivityBanner />}
    </AuthProvider>,
  );
}

const reads = [{ kind: 'currentUser' }, { kind: 'teams' }, { kind: 'contactChannels' }] as const;

type Variant = 'broker' | 'inPage' | 'rawSame' | 'raw' | 'rawUser' | 'direct';

/**
 * A port to the echo SharedWorker and a round trip on it; `answerWith` makes it answer every message with that value.
 */
async function echoPort(answerWith?: unknown): Promise<{ ping(value: unknown): Promise<unknown>; close(): void }> {
  const echo = new SharedWorker('/echo-worker.js', { name: 'echo' });
  echo.port.start();
  let pending: ((value: unknown) => void) | null = null;
  echo.port.onmessage = (message) => pending?.(message.data);
  const ping = (value: unknown) =>
    new Promise<unknown>((resolve) => {
      pending = resolve;
      echo.port.postMessage(value);
    });
  if (answerWith !== undefined) await ping({ answerWith });
  return { ping, close: () => echo.port.close() };
}

/**
 * Round trips, interleaved by round so that machine noise hits every variant alike:
 * broker = `client.read({kind:'currentUser'})` once cached (tab → SharedWorker → tab, Comlink);
 * inPage = the same read on an in-page broker (mode 'in-process': no messaging at all);
 * rawSame = postMessage to a trivial SharedWorker carrying what the read carries (the query out, the user back): the
 * goal's baseline;
 * raw = the same echoing a number; rawUser = the same echoing the user object both ways;
 * direct = an async in-page function returning the cached user.
 */
async function rpc(rounds: number, perRound: number, warmup: number) {
  await client.read({ kind: 'currentUser' });
  const cached = await client.read({ kind: 'currentUser' });
  const inPage: BrokerClient = createBrokerClient({ ...options, mode: 'in-process' });
  await inPage.read({ kind: 'currentUser' });
  const sameAsRead = await echoPort(cached);
  const echo = await echoPort();
  const direct = async () => cached;
  const calls: Record<Variant, () => Promise<unknown>> = {
    broker: () => client.read({ kind: 'currentUser' }),
    inPage: () => inPage.read({ kind: 'currentUser' }),
    rawSame: () => sameAsRead.ping({ kind: 'currentUser' }),
    raw: () => echo.ping(1),
    rawUser: () => echo.ping(cached),
    direct,
  };
  const samples: Record<Variant, number[]> = { broker: [], inPage: [], rawSame: [], raw: [], rawUser: [], direct: [] };
  const variants = Object.keys(calls) as Variant[];
  for (const variant of variants) for (let i = 0; i < warmup; i++) await calls[variant]();
  for (let round = 0; round < rounds; round++) {
    for (const variant of [...variants.slice(round % variants.length), ...variants.slice(0, round % variants.length)]) {
      const call = calls[variant];
      const list = samples[variant];
      for (let i = 0; i < perRound; i++) {
        const start = performance.now();
        await call();
        list.push(performance.now() - start);
      }
    }
  }
  inPage.close();
  sameAsRead.close();
  echo.close();
  // The timer's granularity: the smallest non-zero step performance.now() shows.
  let step = Infinity;
  for (let i = 0, last = performance.now(); i < 2000; i++) {
    const now = performance.now();
    if (now > last) step = Math.min(step, now - last);
    last = now;
  }
  return { samples, crossOriginIsolated: globalThis.crossOriginIsolated === true, timerStepMillis: step };
}

/**
 * A cached read every `everyMillis`, as a page reads now and then, until `stopReads()`: when each started (epoch ms)
 * and took.
 */
let readLoop: { stop(): Promise<Array<[number, number]>> } | null = null;
function startReads(everyMillis: number): void {
  const reads: Array<[number, number]> = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      await client.read({ kind: 'currentUser' });
      reads.push([performance.timeOrigin + started, performance.now() - started]);
      await new Promise((resolve) => setTimeout(resolve, everyMillis));
    }
  })();
  readLoop = {
    async stop() {
      running = false;
      await loop;
      return reads;
    },
  };
}

window.__bench = {
  marks,
  ready: async () => void (await client.connect()),
  async signIn(email, password) {
    const result = await client.signInWithPassword({ email, password });
    if (result.status !== 'signed-in') throw new Error(`Sign-in answered ${result.status}`);
  },
  storm: (count) =>
    settle(
      Array.from({ length: count }, (_, i) =>
        i % 2 === 0 ? () => client.getAccessToken() : () => client.refetch(reads[((i - 1) / 2) % 3]!),
      ),
    ),
  rpc,
  status: () => client.status(),
  readUser: () => client.read({ kind: 'currentUser' }),
  startReads,
  stopReads: () => readLoop!.stop(),
  /** How long a refetch of the user takes (ms), and whether it failed. */
  async refetchUser(): Promise<{ millis: number; error: string | null }> {
    const started = performance.now();
    try {
      await client.refetch({ kind: 'currentUser' });
      return { millis: performance.now() - started, error: null };
    } catch (error) {
      return { millis: performance.now() - started, error: (error as { code?: string }).code ?? String(error) };
    }
  },
  hostile: hostileKit(config),
  appFetch: appFetchKit(client),
  offlineWrites: offlineWritesKit(client),
  // ?connectivity=1 (benchmark 15): the banner's changes.
  connectivity: connectivityKit(),
};

marks.scriptEnd = performance.now();
