/**
 * Only in test builds (`buildExtension({ driver })`): each context of the extension takes commands
 * from the tests' loopback collector and answers them. Firefox's WebDriver BiDi neither opens
 * moz-extension:// pages nor sees the tabs an extension opens, so the extension's own contexts run
 * the scenario; Chromium's tests use the same path, so both browsers run one scenario. The
 * commands are a fixed table (an extension page may not eval).
 */
import type { QuerySnapshot } from '../../client/extension/index.js';

/** What a context offers the driver: its client's methods it uses. */
export interface DriverClient {
  getSnapshot(query: { kind: 'currentUser' } | { kind: 'session' }): QuerySnapshot | undefined;
  subscribe(query: { kind: 'currentUser' } | { kind: 'session' }, listener: () => void): () => void;
  read?(query: { kind: 'session' } | { kind: 'status' } | { kind: 'currentUser' }): Promise<unknown>;
  refetch?(query: { kind: 'currentUser' }): Promise<void>;
  signInWithPassword?(input: { email: string; password: string }): Promise<unknown>;
  signInWithOAuth?(providerId: string): Promise<unknown>;
  signOut(): Promise<void>;
  getAccessToken(): Promise<string | null>;
}

type Command = { id: string; op: string; args?: Record<string, unknown> };

// The wall clock: one for every process of the browser (a context's `performance.timeOrigin` may sit tens of ms off
// another's).
const now = () => Date.now();

function userIdOf(client: DriverClient): string | null | undefined {
  const snapshot = client.getSnapshot({ kind: 'currentUser' });
  if (
    snapshot === undefined ||
    snapshot.isStale === true ||
    (snapshot.status === 'pending' && snapshot.data === undefined)
  )
    return undefined;
  return ((snapshot.data ?? null) as { id: string } | null)?.id ?? null;
}

/** Whose session the client shows: a user id, null when signed out, undefined before the broker said. */
function sessionUserOf(client: DriverClient): string | null | undefined {
  const snapshot = client.getSnapshot({ kind: 'session' });
  const data = snapshot?.data as { status: string; userId?: string | null } | undefined;
  if (data === undefined) return undefined;
  return data.status === 'signed-in' ? (data.userId ?? null) : null;
}

/**
 * When each kind of query last changed to what it shows now, as the context's listener saw it (not when a command
 * asked).
 */
const changedAt = new Map<string, { shown: string | null | undefined; at: number }>();

function watchChanges(client: DriverClient, kind: 'currentUser' | 'session'): void {
  const read = kind === 'session' ? sessionUserOf : userIdOf;
  const note = () => {
    const shown = read(client);
    if (changedAt.get(kind)?.shown !== shown) changedAt.set(kind, { shown, at: now() });
  };
  client.subscribe({ kind }, note);
  note();
}

/**
 * Resolves with the time the client first showed `userId` (null: signed out) in `query`, waiting for it if it does not
 * yet.
 */
function whenShown(client: DriverClient, kind: 'currentUser' | 'session', userId: string | null): Promise<number> {
  const read = kind === 'session' ? sessionUserOf : userIdOf;
  return new Promise((resolve) => {
    let stop = () => undefined as void;
    const check = () => {
      if (read(client) !== userId) return false;
      const change = changedAt.get(kind);
      resolve(change?.shown === userId ? change.at : now());
      queueMicrotask(() => stop());
      return true;
    };
    stop = client.subscribe({ kind }, check);
    check();
  });
}

export function startDriver(
  collector: string,
  context: string,
  client: DriverClient,
  extra: Record<string, (args: Record<string, unknown>) => Promise<unknown>> = {},
): void {
  const instance = crypto.randomUUID();
  const ops: Record<string, (args: Record<string, unknown>) => Promise<unknown>> = {
    signIn: async ({ email, password }) => {
      await client.signInWithPassword!({ email: String(email), password: String(password) });
      return { at: now() };
    },
    signInWithOAuth: async ({ provider }) => {
      await client.signInWithOAuth!(String(provider));
      return { at: now() };
    },
    signOut: async () => {
      await client.signOut();
      return { at: now() };
    },
    user: async () => userIdOf(client) ?? null,
    waitForUser: async ({ userId }) => ({
      at: await whenShown(client, 'currentUser', (userId as string | null) ?? null),
    }),
    waitForSession: async ({ userId }) => ({
      at: await whenShown(client, 'session', (userId as string | null) ?? null),
    }),
    session: async () => client.read!({ kind: 'session' }),
    // How long one read takes from here, the broker's start included when the background was stopped.
    timedSession: async () => {
      const started = performance.now();
      const value = await client.read!({ kind: 'session' });
      return { millis: performance.now() - started, value };
    },
    status: async () => client.read!({ kind: 'status' }),
    accessToken: async () => client.getAccessToken(),
    refetchUser: async () => {
      await client.refetch!({ kind: 'currentUser' });
      return ((await client.read!({ kind: 'currentUser' })) as { id: string } | null)?.id ?? null;
    },
    ...extra,
  };
  watchChanges(client, 'currentUser');
  watchChanges(client, 'session');
  const post = (path: string, body: unknown) =>
    fetch(`${collector}${path}`, { method: 'POST', body: JSON.stringify(body) });
  void (async () => {
    await post('/hello', { context, instance, href: location.href, at: now() });
    for (;;) {
      let command: Command | null;
      try {
        command = (await (await fetch(`${collector}/next?instance=${instance}`)).json()) as Command | null;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      if (command === null) continue;
      const op = ops[command.op];
      const { id } = command;
      Promise.resolve()
        .then(() => (op ? op(command.args ?? {}) : Promise.reject(new Error(`no op ${command.op}`))))
        .then(
          (value) => post('/result', { id, value: value ?? null }),
          (error: unknown) =>
            post('/result', {
              id,
              error: {
                message: error instanceof Error ? error.message : String(error),
                code: (error as { code?: unknown }).code ?? null,
              },
            }),
        )
        .catch(() => undefined);
    }
  })();
}
