/**
 * A page that uses only `authbroker/client` (no React): it creates the client, subscribes to the
 * session and the user, and shows the user it gets back at once from the copy kept since the last
 * visit. Each library call is timed from the first line of this module (the library's own module
 * code has run before it): what a page pays before it knows its user, and how much of it is the library.
 */
import { scriptStart } from './t0.js';
import { createBrokerClient } from '../../client/index.js';
import type { User } from '../../protocol/models.js';
import { marks, readConfig } from './marks.js';

const appStart = performance.now();
Object.assign(marks, scriptStart);
const config = readConfig();
const root = document.getElementById('root')!;
const show = (user: User | null | undefined) => {
  root.textContent =
    user === undefined
      ? 'Loading…'
      : user === null
        ? 'Signed out'
        : `Signed in as ${user.displayName ?? user.primaryEmail}`;
};
const currentUser = { kind: 'currentUser' } as const;

/**
 * `?floor=1`: no client at all, only what reading the kept copy costs any page: the first read of
 * `localStorage` (in Chromium a synchronous call to the browser process, which loads the origin's
 * storage) and parsing the record. The floor under "kept user known".
 */
function readKeptCopyOnly(): void {
  const text = localStorage.getItem(`authbroker:snapshot:${config.projectId}@${config.api.replace(/\/+$/, '')}`);
  const record = JSON.parse(text ?? 'null') as { entries?: Record<string, { data?: User }> } | null;
  const user = record?.entries?.['["currentUser",{}]']?.data;
  marks.clientOnly = {
    appStart,
    ...(user === undefined ? {} : { keptUser: performance.now() }),
    calls: { createBrokerClient: 0, subscribeSession: 0, subscribeCurrentUser: 0, getSnapshot: 0 },
  };
  show(user);
}

function withTheClient() {
  let time = performance.now();
  const lap = () => {
    const now = performance.now();
    const took = now - time;
    time = now;
    return took;
  };
  const client = createBrokerClient({
    baseUrl: config.api,
    projectId: config.projectId,
    publishableClientKey: config.publishableClientKey,
    sharedWorker: '/broker-worker.js',
  });
  const createTook = lap();
  client.subscribe({ kind: 'session' }, () => undefined);
  const sessionTook = lap();
  client.subscribe(currentUser, () => {
    const snapshot = client.getSnapshot(currentUser);
    if (snapshot?.isStale !== true && snapshot?.status === 'success' && marks.clientOnly!.fresh === undefined)
      marks.clientOnly!.fresh = performance.now();
    show(snapshot?.data as User | null | undefined);
  });
  const userTook = lap();
  const kept = client.getSnapshot(currentUser);
  const snapshotTook = lap();
  marks.clientOnly = {
    appStart,
    ...(kept?.data === undefined ? {} : { keptUser: performance.now() }),
    calls: {
      createBrokerClient: createTook,
      subscribeSession: sessionTook,
      subscribeCurrentUser: userTook,
      getSnapshot: snapshotTook,
    },
  };
  show(kept?.data as User | null | undefined);
  return client;
}

const floor = new URLSearchParams(location.search).has('floor');
const client = floor ? null : withTheClient();
if (floor) readKeptCopyOnly();
requestAnimationFrame(() => (marks.clientOnly!.firstFrame = performance.now()));
Object.defineProperty(marks, 'connected', {
  enumerable: true,
  get: () => performance.getEntriesByName('authbroker:connected')[0]?.startTime,
});

window.__bench = {
  marks,
  ready: async () => void (await client?.connect()),
  async signIn(email, password) {
    await client?.signInWithPassword({ email, password });
  },
  storm: async () => ({ ok: 0, failed: 0, errors: [] }),
};
marks.scriptEnd = performance.now();
