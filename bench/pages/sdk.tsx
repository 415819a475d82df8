/**
 * The official SDK's bench page: `@stackframe/js` (cookie token store, as in a browser app) with a
 * small React layer, since the package ships no hooks: each component awaits the SDK's own
 * calls (`getUser`, `user.listTeams`, `user.listContactChannels`), which the SDK caches per tab.
 */
import { scriptStart } from './t0.js';
import { StackClientApp, type CurrentUser } from '@stackframe/js';
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { marks, readConfig, Screen, settle } from './common.js';

Object.assign(marks, scriptStart);

const config = readConfig();
const app = new StackClientApp({
  baseUrl: config.api,
  projectId: config.projectId,
  publishableClientKey: config.publishableClientKey,
  tokenStore: 'cookie',
  redirectMethod: 'none',
});

function useAsync<T>(run: () => Promise<T> | null, deps: unknown[]): T | null {
  const [value, setValue] = useState<T | null>(null);
  useEffect(() => {
    let live = true;
    run()?.then(
      (v) => live && setValue(v),
      (error: unknown) => marks.errors.push(String(error)),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  return value;
}

function App() {
  const user = useAsync<CurrentUser | null>(() => app.getUser(), []);
  const teams = useAsync(() => (user ? user.listTeams() : null), [user]);
  const channels = useAsync(() => (user ? user.listContactChannels() : null), [user]);
  return (
    <Screen
      user={user ? { email: user.primaryEmail, name: user.displayName } : null}
      teams={teams ? teams.map((t) => t.displayName) : null}
      channels={channels ? channels.map((c) => c.value) : null}
    />
  );
}

if (config.mode === 'hooks') createRoot(document.getElementById('root')!).render(<App />);

async function signedInUser(): Promise<CurrentUser> {
  const user = await app.getUser();
  if (!user) throw new Error('The SDK has no signed-in user.');
  return user;
}

const reads = [() => signedInUser(), async () => (await signedInUser()).listTeams(), async () => (await signedInUser()).listContactChannels()];

window.__bench = {
  marks,
  ready: async () => undefined,
  async signIn(email, password) {
    const result = await app.signInWithCredential({ email, password, noRedirect: true });
    if (result.status !== 'ok') throw new Error(`SDK sign-in failed: ${String(result.error)}`);
  },
  storm: (count) => settle(Array.from({ length: count }, (_, i) => (i % 2 === 0 ? async () => (await signedInUser()).getAuthJson() : reads[((i - 1) / 2) % 3]!))),
};

marks.scriptEnd = performance.now();
