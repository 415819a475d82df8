/**
 * Shared by the bench pages, React or not: configuration from the query string, the time marks the
 * harness reads, and what the harness calls in a page.
 */

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
  return {
    api: get('api'),
    projectId: get('pid'),
    publishableClientKey: get('pck'),
    mode: params.get('mode') === 'idle' ? 'idle' : 'hooks',
  };
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
  /** When the screen was settled: the user shown, or the sign-in form (nobody signed in). */
  settled?: number;
  settledEpoch?: number;
  /** When the page's script finished its first run (context: how much is the page's own start-up). */
  scriptEnd?: number;
  /** When React first committed the screen (with or without the user): the end of the page's own start-up. */
  firstCommit?: number;
  /** authbroker with `?apiKeys=1` (fan-in's API-keys row): when the user's own API keys were in the DOM. */
  apiKeys?: number;
  /** authbroker with `?payments=1` (fan-in's payments row): when the user's credits and products were in the DOM. */
  payments?: number;
  /** authbroker only: when the client was connected to its broker. */
  connected?: number;
  /** The client-only page (no React): see bench/pages/clientOnly.ts. */
  clientOnly?: ClientOnlyMarks;
  errors: string[];
}

export interface ClientOnlyMarks {
  /** performance.now() at the first line of the app's module (the library's own module code ran before). */
  appStart: number;
  /** When `getSnapshot({ kind: 'currentUser' })` gave the kept user (undefined: it gave none). */
  keptUser?: number;
  /** How long each library call took, in the order made. */
  calls: { createBrokerClient: number; subscribeSession: number; subscribeCurrentUser: number; getSnapshot: number };
  /** When the page's first frame was about to be painted (its first requestAnimationFrame callback). */
  firstFrame?: number;
  /** When the broker's own value of the user arrived. */
  fresh?: number;
}

/** Each page fills in t0 from its first import (./t0.js) at the top of its script. */
export const marks: Marks = { t0: Number.NaN, t0Epoch: Number.NaN, errors: [] };
addEventListener('error', (event) => marks.errors.push(String(event.message)));
addEventListener('unhandledrejection', (event) =>
  marks.errors.push(String((event.reason as Error)?.message ?? event.reason)),
);

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

export async function settle(
  calls: Array<() => Promise<unknown>>,
): Promise<{ ok: number; failed: number; errors: string[] }> {
  const results = await Promise.allSettled(calls.map((call) => call()));
  const errors = results.flatMap((r) =>
    r.status === 'rejected' ? [String((r.reason as Error)?.message ?? r.reason)] : [],
  );
  return { ok: results.length - errors.length, failed: errors.length, errors: [...new Set(errors)].slice(0, 5) };
}
