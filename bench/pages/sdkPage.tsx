/**
 * The official SDK's bench page, for any `@stackframe/js` release (cookie token store, as in a
 * browser app) with a small React layer, since the package ships no hooks: each component awaits
 * the SDK's own calls (`getUser`, `user.listTeams`, `user.listContactChannels`), which the SDK
 * caches per tab. `sdk.tsx` runs it with the release the benchmarks compare by default,
 * `sdkNewest.tsx` with the newest release that works against the emulator.
 */
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { marks, readConfig, Screen, settle } from './common.js';

/** What the page uses of a signed-in user; the same in every release. */
interface SdkUser {
  primaryEmail: string | null;
  displayName: string | null;
  listTeams(): Promise<Array<{ displayName: string }>>;
  listContactChannels(): Promise<Array<{ value: string }>>;
  getAuthJson(): Promise<unknown>;
}

/** What the page uses of `StackClientApp`; each release's own types differ around it. */
export interface SdkApp {
  getUser(): Promise<SdkUser | null>;
  signInWithCredential(options: {
    email: string;
    password: string;
    noRedirect: true;
  }): Promise<{ status: 'ok' } | { status: 'error'; error: unknown }>;
}

export type SdkAppClass = new (options: {
  baseUrl: string;
  projectId: string;
  publishableClientKey: string;
  tokenStore: 'cookie';
  redirectMethod: 'none';
}) => SdkApp;

export function startSdkPage(StackClientApp: SdkAppClass): void {
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
    const user = useAsync<SdkUser | null>(() => app.getUser(), []);
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

  async function signedInUser(): Promise<SdkUser> {
    const user = await app.getUser();
    if (!user) throw new Error('The SDK has no signed-in user.');
    return user;
  }

  const reads = [
    () => signedInUser(),
    async () => (await signedInUser()).listTeams(),
    async () => (await signedInUser()).listContactChannels(),
  ];

  window.__bench = {
    marks,
    ready: async () => undefined,
    async signIn(email, password) {
      const result = await app.signInWithCredential({ email, password, noRedirect: true });
      if (result.status !== 'ok')
        throw new Error(`SDK sign-in failed: ${String((result as { error: unknown }).error)}`);
    },
    storm: (count) =>
      settle(
        Array.from({ length: count }, (_, i) =>
          i % 2 === 0 ? async () => (await signedInUser()).getAuthJson() : reads[((i - 1) / 2) % 3]!,
        ),
      ),
  };

  marks.scriptEnd = performance.now();
}
