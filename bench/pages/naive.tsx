/**
 * The naive per-tab client: our protocol layer used directly in each tab. Tokens sit in
 * localStorage; every tab has its own refreshing token source (its own refreshes) and asks the
 * service for everything it shows.
 */
import { scriptStart } from './t0.js';
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import * as endpoints from '../../protocol/endpoints/index.js';
import { createRefreshingTokenSource } from '../../protocol/tokenSource.js';
import { createTransport } from '../../protocol/transport.js';
import { marks, readConfig, Screen, settle } from './common.js';

Object.assign(marks, scriptStart);

const config = readConfig();
const STORAGE_KEY = 'naive-session';
const common = { baseUrl: config.api, projectId: config.projectId, publishableClientKey: config.publishableClientKey };
const stored = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null') as {
  refreshToken: string;
  accessToken: string;
} | null;
const tokens = stored
  ? createRefreshingTokenSource({ ...common, refreshToken: stored.refreshToken, accessToken: stored.accessToken })
  : undefined;
const t = createTransport({ ...common, accessType: 'client', userTokens: tokens });

function useFetched<T>(load: () => Promise<T>): T | null {
  const [value, setValue] = useState<T | null>(null);
  useEffect(() => {
    let live = true;
    load().then(
      (v) => live && setValue(v),
      (error: unknown) => marks.errors.push(String(error)),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return value;
}

function App() {
  const user = useFetched(() => endpoints.getCurrentUser(t));
  const teams = useFetched(() => endpoints.listTeams(t, { userId: 'me' }));
  const channels = useFetched(() => endpoints.listContactChannels(t, { userId: 'me' }));
  return (
    <Screen
      user={user ? { email: user.primary_email, name: user.display_name } : null}
      teams={teams ? teams.map((x) => x.display_name) : null}
      channels={channels ? channels.map((c) => c.value) : null}
    />
  );
}

if (config.mode === 'hooks') createRoot(document.getElementById('root')!).render(<App />);

const reads = [
  () => endpoints.getCurrentUser(t),
  () => endpoints.listTeams(t, { userId: 'me' }),
  () => endpoints.listContactChannels(t, { userId: 'me' }),
];

window.__bench = {
  marks,
  ready: async () => undefined,
  async signIn(email, password) {
    const { access_token, refresh_token } = await endpoints.signInWithPassword(t, { email, password });
    localStorage.setItem(STORAGE_KEY, JSON.stringify({ accessToken: access_token, refreshToken: refresh_token }));
  },
  storm: (count) =>
    settle(
      Array.from({ length: count }, (_, i) =>
        i % 2 === 0 ? async () => (tokens ? tokens.getAccessToken() : null) : reads[((i - 1) / 2) % 3]!,
      ),
    ),
};

marks.scriptEnd = performance.now();
