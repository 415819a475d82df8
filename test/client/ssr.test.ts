// @vitest-environment node
/**
 * Server rendering: the entries import in plain Node without touching browser globals, and
 * rendering shows the signed-out placeholders without connecting to anything.
 */
import { createElement as h, Suspense, type ReactNode } from 'react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

type ClientModule = typeof import('../../client/index.js');
type ReactModule = typeof import('../../client/react/index.js');

const BROWSER_GLOBALS = [
  'window',
  'document',
  'location',
  'history',
  'navigator',
  'localStorage',
  'sessionStorage',
  'indexedDB',
  'SharedWorker',
  'self',
];
const touchedAtImport: string[] = [];
let client: ClientModule;
let react: ReactModule;

beforeAll(async () => {
  // Every browser global reads through a trap while the entries load.
  const saved = BROWSER_GLOBALS.map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)] as const);
  for (const name of BROWSER_GLOBALS) {
    Object.defineProperty(globalThis, name, {
      configurable: true,
      get() {
        touchedAtImport.push(name);
        return undefined;
      },
    });
  }
  try {
    client = await import('../../client/index.js');
    react = await import('../../client/react/index.js');
    await import('../../client/messages.js');
  } finally {
    for (const [name, descriptor] of saved) {
      if (descriptor) Object.defineProperty(globalThis, name, descriptor);
      else delete (globalThis as Record<string, unknown>)[name];
    }
  }
});

afterEach(() => vi.restoreAllMocks());

const options = {
  baseUrl: 'http://127.0.0.1:9',
  projectId: '00000000-0000-4000-8000-000000000001',
  publishableClientKey: 'pck_ssr',
} as const;

/** Fails the test if anything reaches for the network. */
function forbidFetch() {
  return vi.spyOn(globalThis, 'fetch').mockImplementation(async () => {
    throw new Error('server rendering must not fetch');
  });
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 50));

function Placeholders(): ReactNode {
  // useUser suspends until the user is known: on a server it is never known, so pages read the state.
  const user = react.useUserState();
  const session = react.useSession();
  const teams = react.useTeams();
  const project = react.useProject();
  const status = react.useBrokerStatus();
  return h(
    'p',
    null,
    `${user.user?.primaryEmail ?? 'nobody'}|${session.status}|${teams.length}|${project?.displayName ?? 'no project'}|${status?.mode ?? 'no broker'}|${user.status}`,
  );
}

describe('server rendering', () => {
  it('importing client/index.ts and client/react/index.ts touches no browser global', () => {
    expect(typeof window).toBe('undefined');
    expect(touchedAtImport).toEqual([]);
    expect(typeof client.createBrokerClient).toBe('function');
    expect(typeof react.AuthProvider).toBe('function');
  });

  it('createBrokerClient works without a window: empty handler URLs, no connection, a clear error when asked to connect', async () => {
    const fetchSpy = forbidFetch();
    const c = client.createBrokerClient(options);
    expect(c.mode).toBeNull();
    expect(c.paths.signIn).toBe('/handler/sign-in');
    expect(Object.values(c.urls).every((url) => url === '')).toBe(true);
    // The paths are worked out when first read, once, with the app's own.
    const own = client.createBrokerClient({ ...options, handlerPaths: { handler: '/auth', home: '/app' } });
    expect(own.paths).toBe(own.paths);
    expect(own.paths).toMatchObject({
      signIn: '/auth/sign-in',
      teamInvitation: '/auth/team-invitation',
      home: '/app',
      afterSignOut: '/app',
    });
    expect(Object.keys(own.urls)).toEqual(Object.keys(own.paths));
    await expect(c.connect()).rejects.toMatchObject({
      name: 'ClientError',
      code: 'BROKER_UNAVAILABLE',
      message: expect.stringContaining('server rendering'),
    });
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('renderToString with <AuthProvider client> renders the signed-out placeholders and connects nothing', async () => {
    const { renderToString } = await import('react-dom/server');
    const fetchSpy = forbidFetch();
    // Even a client forced in-page would start a broker (and fetch the project) if a hook subscribed.
    const c = client.createBrokerClient({ ...options, mode: 'in-process' });
    const html = renderToString(h(react.AuthProvider, { client: c }, h(Placeholders)));
    expect(html).toBe('<p>nobody|loading|0|no project|no broker|loading</p>');
    await tick();
    expect(c.mode).toBeNull();
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('<AuthProvider options> renders on the server too', async () => {
    const { renderToString } = await import('react-dom/server');
    const fetchSpy = forbidFetch();
    const html = renderToString(h(react.AuthProvider, { options }, h(Placeholders)));
    expect(html).toBe('<p>nobody|loading|0|no project|no broker|loading</p>');
    await tick();
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('a Suspense hook sends the fallback and leaves the boundary to the browser, also when streaming', async () => {
    const { renderToString, renderToReadableStream } = await import('react-dom/server');
    const fetchSpy = forbidFetch();
    const c = client.createBrokerClient({ ...options, mode: 'in-process' });
    let renders = 0;
    function Suspended(): ReactNode {
      renders += 1;
      // A render loop would never let the test end: stop it here so the count can show it.
      if (renders > 25) throw new Error('render loop');
      const user = react.useSuspenseUser();
      return h('p', null, user?.primaryEmail ?? 'nobody');
    }
    const tree = h(react.AuthProvider, { client: c }, h(Suspense, { fallback: h('p', null, 'loading') }, h(Suspended)));

    expect(renderToString(tree)).toContain('<p>loading</p>');

    renders = 0;
    const errors: unknown[] = [];
    const stream = await renderToReadableStream(tree, { onError: (error) => void errors.push(error) });
    await stream.allReady;
    const html = await new Response(stream).text();
    expect(html).toContain('<p>loading</p>');
    expect(html).not.toContain('nobody');
    expect(renders).toBeLessThan(5);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ name: 'ClientError', code: 'BROKER_UNAVAILABLE' });
    await tick();
    expect(c.mode).toBeNull();
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});
