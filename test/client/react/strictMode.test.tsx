import { act, render, screen, waitFor } from '@testing-library/react';
import { StrictMode, Suspense, type ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BrokerClient } from '../../../client/index.js';
import { AuthProvider, useBrokerClient, useSession, useTeams, useUserState } from '../../../client/react/index.js';
import { PREFETCH_HOLD_MILLIS, RELEASE_GRACE_MILLIS } from '../../../client/queryStore.js';
import { useEmulator } from '../../support/emulator.js';
import { createUser, demoOptions, newClient, resetBrowser, sleep } from './helpers.js';

/** What reaches the in-page brokers: every (un)subscribe call, brokers started and closed. */
const seen = vi.hoisted(() => ({
  subscribe: [] as string[],
  unsubscribe: [] as string[],
  brokersStarted: 0,
  brokersClosed: 0,
  onStarted: null as (() => void) | null,
}));

vi.mock('../../../worker/hosts/inProcess.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../worker/hosts/inProcess.js')>();
  return {
    ...original,
    createInProcessBroker: async (...args: Parameters<typeof original.createInProcessBroker>) => {
      const broker = await original.createInProcessBroker(...args);
      seen.brokersStarted += 1;
      seen.onStarted?.();
      return {
        ...broker,
        connect(hello: Parameters<typeof broker.connect>[0], listener: Parameters<typeof broker.connect>[1]) {
          const api = broker.connect(hello, listener);
          return {
            ...api,
            subscribe: (id: string, query: Parameters<typeof api.subscribe>[1]) => {
              seen.subscribe.push(id);
              return api.subscribe(id, query);
            },
            unsubscribe: (id: string) => {
              seen.unsubscribe.push(id);
              return api.unsubscribe(id);
            },
          };
        },
        close() {
          seen.brokersClosed += 1;
          broker.close();
        },
      };
    },
  };
});

const emulator = useEmulator();
beforeEach(() => {
  seen.subscribe.length = 0;
  seen.unsubscribe.length = 0;
  seen.brokersStarted = 0;
  seen.brokersClosed = 0;
  seen.onStarted = null;
});
afterEach(resetBrowser);

function Profile({ testId = 'profile' }: { testId?: string }) {
  const { user } = useUserState();
  const teams = useTeams();
  const session = useSession();
  return <p data-testid={testId}>{`${session.status}|${user?.primaryEmail ?? 'nobody'}|${teams.length}`}</p>;
}

function Email({ renders }: { renders: string[] }) {
  const { user } = useUserState();
  renders.push(user?.primaryEmail ?? 'nobody');
  return <p data-testid="email">{user?.primaryEmail ?? 'nobody'}</p>;
}

const strict = (client: BrokerClient, children: ReactNode) => (
  <StrictMode>
    <AuthProvider client={client}>{children}</AuthProvider>
  </StrictMode>
);

const count = (list: string[], id: string) => list.filter((x) => x === id).length;

async function signedInClient() {
  const em = emulator();
  const account = await createUser(em);
  const client = newClient(em);
  await client.signInWithPassword({ email: account.email, password: account.password });
  return { client, account };
}

describe('StrictMode', () => {
  it('the double mount subscribes each query once at the broker, however many hooks watch it', async () => {
    const { client, account } = await signedInClient();
    render(
      strict(
        client,
        <>
          <Profile />
          <Profile testId="again" />
        </>,
      ),
    );
    await waitFor(() => expect(screen.getByTestId('profile').textContent).toBe(`signed-in|${account.email}|0`));
    expect(screen.getByTestId('again').textContent).toBe(`signed-in|${account.email}|0`);
    expect([...seen.subscribe].sort()).toEqual(['["currentUser",{}]', '["session",{}]', '["teams",{}]']);
    expect(seen.unsubscribe).toEqual([]);
    expect((await client.status()).subscriptions).toBe(3);
  });

  it('an unmount and remount within the grace keeps the subscription and its value', async () => {
    const { client, account } = await signedInClient();
    const renders: string[] = [];
    const view = render(strict(client, <Email renders={renders} />));
    await waitFor(() => expect(screen.getByTestId('email').textContent).toBe(account.email));
    view.rerender(strict(client, null));
    await sleep(RELEASE_GRACE_MILLIS / 4);
    renders.length = 0;
    view.rerender(strict(client, <Email renders={renders} />));
    // The first render after the remount already has the user: no flash of "nobody", no new fetch.
    expect(renders[0]).toBe(account.email);
    await sleep(RELEASE_GRACE_MILLIS + 50);
    expect(count(seen.subscribe, '["currentUser",{}]')).toBe(1);
    expect(seen.unsubscribe).toEqual([]);
    expect((await client.status()).subscriptions).toBe(1);
  });

  it('after everything unmounts, the broker’s subscriptions drop to 0 once the grace is over', async () => {
    const { client, account } = await signedInClient();
    const view = render(strict(client, <Profile />));
    await waitFor(() => expect(screen.getByTestId('profile').textContent).toBe(`signed-in|${account.email}|0`));
    view.unmount();
    expect((await client.status()).subscriptions).toBe(3);
    await waitFor(async () => expect((await client.status()).subscriptions).toBe(0), {
      timeout: RELEASE_GRACE_MILLIS * 5,
    });
    expect([...seen.unsubscribe].sort()).toEqual(['["currentUser",{}]', '["session",{}]', '["teams",{}]']);
  });

  it('a provider given options creates one broker under the double mount, works, and closes it on unmount', async () => {
    const em = emulator();
    const account = await createUser(em);
    let captured: BrokerClient | null = null;
    function Capture() {
      captured = useBrokerClient();
      return null;
    }
    const view = render(
      <StrictMode>
        <AuthProvider options={demoOptions(em)}>
          <Capture />
          <Profile />
        </AuthProvider>
      </StrictMode>,
    );
    await waitFor(() => expect(screen.getByTestId('profile').textContent).toBe('signed-out|nobody|0'));
    await act(() => captured!.signInWithPassword({ email: account.email, password: account.password }));
    await waitFor(() => expect(screen.getByTestId('profile').textContent).toBe(`signed-in|${account.email}|0`));
    expect(seen.brokersStarted).toBe(1);
    expect(seen.brokersClosed).toBe(0);
    view.unmount();
    await sleep(RELEASE_GRACE_MILLIS + 50);
    expect(seen.brokersClosed).toBe(seen.brokersStarted);
  });
});

describe('asking during render', () => {
  const never = new Promise<never>(() => undefined);
  function Stuck(): ReactNode {
    throw never;
  }

  it('a component that rendered but has not committed (a sibling suspends) has already asked the broker; unasked, it lets go', async () => {
    const { client } = await signedInClient();
    const renders: string[] = [];
    const view = render(
      strict(
        client,
        <Suspense fallback={<p data-testid="fallback">…</p>}>
          <Stuck />
          <Email renders={renders} />
        </Suspense>,
      ),
    );
    screen.getByTestId('fallback');
    // Email rendered (React pre-renders the siblings of what suspended) but never committed, so no
    // effect subscribed it: the request comes from the render itself.
    await waitFor(() => expect(renders.length).toBeGreaterThan(0));
    await waitFor(() => expect(count(seen.subscribe, '["currentUser",{}]')).toBe(1));
    expect(screen.queryByTestId('email')).toBeNull();
    view.unmount();
    // Nobody committed to it: the broker subscription goes once the hold and the grace are over.
    await waitFor(() => expect(seen.unsubscribe).toContain('["currentUser",{}]'), {
      timeout: PREFETCH_HOLD_MILLIS + RELEASE_GRACE_MILLIS * 5,
    });
    expect((await client.status()).subscriptions).toBe(0);
  });
});

describe('closing a client', () => {
  it('late releases after close() do not start a broker again just to unsubscribe', async () => {
    const { client, account } = await signedInClient();
    const view = render(strict(client, <Profile />));
    await waitFor(() => expect(screen.getByTestId('profile').textContent).toBe(`signed-in|${account.email}|0`));
    view.unmount();
    client.close();
    await sleep(RELEASE_GRACE_MILLIS + 50);
    expect({ started: seen.brokersStarted, closed: seen.brokersClosed }).toEqual({ started: 1, closed: 1 });
  });

  it('close() before the connection has loaded starts no broker at all', async () => {
    const client = newClient(emulator());
    const connecting = client.connect();
    client.close();
    await expect(connecting).rejects.toMatchObject({ name: 'ClientError', code: 'BROKER_CLOSED' });
    expect({ started: seen.brokersStarted, closed: seen.brokersClosed }).toEqual({ started: 0, closed: 0 });
    expect(client.mode).toBeNull();
  });

  it('close() while connecting closes the connection when it arrives', async () => {
    const client = newClient(emulator());
    // Closed once its broker has started, before the connection is handed to the client.
    seen.onStarted = () => client.close();
    await expect(client.connect()).rejects.toMatchObject({ name: 'ClientError', code: 'BROKER_CLOSED' });
    expect({ started: seen.brokersStarted, closed: seen.brokersClosed }).toEqual({ started: 1, closed: 1 });
    expect(client.mode).toBeNull();
  });

  it('a client used again after close() subscribes what is still on screen to the new broker', async () => {
    const { client, account } = await signedInClient();
    render(strict(client, <Profile />));
    await waitFor(() => expect(screen.getByTestId('profile').textContent).toBe(`signed-in|${account.email}|0`));
    client.close();
    await act(() => client.signOut());
    await waitFor(() => expect(screen.getByTestId('profile').textContent).toBe('signed-out|nobody|0'));
    expect({ started: seen.brokersStarted, closed: seen.brokersClosed }).toEqual({ started: 2, closed: 1 });
    expect((await client.status()).subscriptions).toBe(3);
  });
});
