/**
 * Bundled and run by compiledAhead.test.ts in a Node process with V8's function events logged: the
 * few lines a page runs before its first frame, against a fake `window` whose `localStorage` holds
 * a kept copy. `firstFrameWork` is the window the test reads the log in.
 */
import { createBrokerClient } from '../../../client/index.js';
import { KEPT_SHAPES, type Rule } from '../../../contract/keptShapes.js';

const BASE_URL = 'http://127.0.0.1:8102';
const PROJECT_ID = '6f1bbbb0-35b4-4b9e-9b7e-6d2b5b7c0a11';
const USER_ID = 'kept-user';
/** hashQueryKey({ kind: 'currentUser' }), written out: the key function must first run inside the measured window. */
const CURRENT_USER_KEY = '["currentUser",{}]';

/** A value of the shape `rule` describes (the first choice of each). */
function sampleOf(rule: Rule): unknown {
  if (typeof rule === 'string')
    return rule.startsWith('s') ? 'text' : rule.startsWith('n') ? 1 : rule.startsWith('b') ? true : {};
  if (Array.isArray(rule)) return [sampleOf(rule[0] as Rule)];
  if ('?' in rule) return sampleOf((rule as { '?': Rule })['?']);
  return Object.fromEntries(Object.entries(rule).map(([field, inner]) => [field, sampleOf(inner as Rule)]));
}

// Of the kept shape, or the client would drop it and the test would see no user.
const user = { ...(sampleOf(KEPT_SHAPES.currentUser) as Record<string, unknown>), id: USER_ID };
const items = new Map<string, string>([
  [
    `authbroker:snapshot:${PROJECT_ID}@${BASE_URL}`,
    JSON.stringify({
      v: 1,
      userId: USER_ID,
      savedAtMillis: Date.now(),
      entries: { [CURRENT_USER_KEY]: { data: user, updatedAtMillis: Date.now() } },
    }),
  ],
]);
const localStorage = {
  getItem: (key: string) => items.get(key) ?? null,
  setItem: (key: string, value: string) => void items.set(key, String(value)),
  removeItem: (key: string) => void items.delete(key),
};
Object.assign(globalThis, {
  window: globalThis,
  document: { visibilityState: 'hidden' },
  location: new URL('http://localhost:5173/'),
  localStorage,
});

function firstFrameWork() {
  const client = createBrokerClient({
    baseUrl: BASE_URL,
    projectId: PROJECT_ID,
    publishableClientKey: 'pck_probe',
    sharedWorker: '/broker-worker.js',
  });
  client.subscribe({ kind: 'session' }, () => undefined);
  client.subscribe({ kind: 'currentUser' }, () => undefined);
  return client.getSnapshot({ kind: 'currentUser' });
}

function afterFirstFrameWork(snapshot: ReturnType<typeof firstFrameWork>) {
  console.log(JSON.stringify({ keptUserId: (snapshot?.data as { id?: string } | undefined)?.id ?? null }));
  // Before the connection would start (after the frame): nothing else is measured.
  process.exit(0);
}

afterFirstFrameWork(firstFrameWork());
