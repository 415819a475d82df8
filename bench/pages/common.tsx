/**
 * Shared by the bench pages: configuration from the query string, time marks the harness reads,
 * and the screen every client kind renders (user, teams, contact channels).
 */
import { useLayoutEffect } from 'react';

export interface PageConfig {
  api: string;
  projectId: string;
  publishableClientKey: string;
  /** hooks: render the screen; idle: only create the client (storms, RPC, set-up). */
  mode: 'hooks' | 'idle';
}

export function readConfig(): PageConfig {
  const params = new URLSearchParams(location.search);
  const get = (name: string) => {
    const value = params.get(name);
    if (value === null) throw new Error(`The bench page needs ?${name}=`);
    return value;
  };
  return { api: get('api'), projectId: get('pid'), publishableClientKey: get('pck'), mode: params.get('mode') === 'idle' ? 'idle' : 'hooks' };
}

export interface Marks {
  t0: number;
  t0Epoch: number;
  /** performance.now() and Date.now() when the user was first in the DOM. */
  user?: number;
  userEpoch?: number;
  /** When user, teams and contact channels were all in the DOM. */
  ready?: number;
  readyEpoch?: number;
  /** When the page's script finished its first run (context: how much is the page's own start-up). */
  scriptEnd?: number;
  /** When React first committed the screen (with or without the user): the end of the page's own start-up. */
  firstCommit?: number;
  /** authbroker only: when the client was connected to its broker. */
  connected?: number;
  errors: string[];
}

/** Each page fills in t0 from its first import (./t0.js) at the top of its script. */
export const marks: Marks = { t0: Number.NaN, t0Epoch: Number.NaN, errors: [] };
addEventListener('error', (event) => marks.errors.push(String(event.message)));
addEventListener('unhandledrejection', (event) => marks.errors.push(String((event.reason as Error)?.message ?? event.reason)));

/** What the harness calls in a page (page.evaluate). */
export interface BenchApi {
  marks: Marks;
  /** Resolves when the client is usable (connected to its broker for authbroker). */
  ready(): Promise<void>;
  signIn(email: string, password: string): Promise<void>;
  /** Fires `count` calls at once (half token requests, half reads) and counts failures. */
  storm(count: number): Promise<{ ok: number; failed: number; errors: string[] }>;
  [extra: string]: unknown;
}

declare global {
  interface Window {
    __bench: BenchApi;
  }
}

export async function settle(calls: Array<() => Promise<unknown>>): Promise<{ ok: number; failed: number; errors: string[] }> {
  const results = await Promise.allSettled(calls.map((call) => call()));
  const errors = results.flatMap((r) => (r.status === 'rejected' ? [String((r.reason as Error)?.message ?? r.reason)] : []));
  return { ok: results.length - errors.length, failed: errors.length, errors: [...new Set(errors)].slice(0, 5) };
}

export interface ScreenProps {
  user: { email: string | null; name: string | null } | null;
  /** null while loading. */
  teams: string[] | null;
  channels: string[] | null;
}

export function Screen({ user, teams, channels }: ScreenProps) {
  useLayoutEffect(() => {
    marks.firstCommit ??= performance.now();
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
      {user ? <h1 id="user">Signed in as {user.name ?? user.email}</h1> : <p>Loading…</p>}
      <h2>Teams</h2>
      <ul id="teams">{teams === null ? <li>Loading…</li> : teams.map((t, i) => <li key={i}>{t}</li>)}</ul>
      <h2>Contact channels</h2>
      <ul id="channels">{channels === null ? <li>Loading…</li> : channels.map((c, i) => <li key={i}>{c}</li>)}</ul>
    </main>
  );
}
