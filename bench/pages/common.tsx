/**
 * Shared by the React bench pages: the screen every client kind renders (user, teams, contact
 * channels), and what every page shares (./marks.js).
 */
import { useLayoutEffect } from 'react';
import { marks } from './marks.js';

export { marks, readConfig, settle, type BenchApi, type Marks, type PageConfig } from './marks.js';

export interface ScreenProps {
  user: { email: string | null; name: string | null } | null;
  /** Nobody is signed in (known, not loading): the screen shows the sign-in form. */
  signedOut?: boolean;
  /** null while loading. */
  teams: string[] | null;
  channels: string[] | null;
}

export function Screen({ user, signedOut = false, teams, channels }: ScreenProps) {
  useLayoutEffect(() => {
    marks.firstCommit ??= performance.now();
    if ((user || signedOut) && marks.settled === undefined) {
      marks.settled = performance.now();
      marks.settledEpoch = Date.now();
    }
    if (user && marks.user === undefined) {
      marks.user = performance.now();
      marks.userEpoch = Date.now();
    }
    if (user && teams && channels && marks.ready === undefined) {
      marks.ready = performance.now();
      marks.readyEpoch = Date.now();
    }
  });
  return (
    <main>
      {user ? (
        <h1 id="user">Signed in as {user.name ?? user.email}</h1>
      ) : signedOut ? (
        <form id="sign-in">
          <input name="email" type="email" placeholder="E-mail" />
          <input name="password" type="password" placeholder="Password" />
          <button>Sign in</button>
        </form>
      ) : (
        <p>Loading…</p>
      )}
      <h2>Teams</h2>
      <ul id="teams">{teams === null ? <li>Loading…</li> : teams.map((t, i) => <li key={i}>{t}</li>)}</ul>
      <h2>Contact channels</h2>
      <ul id="channels">{channels === null ? <li>Loading…</li> : channels.map((c, i) => <li key={i}>{c}</li>)}</ul>
    </main>
  );
}
