import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthbrokerDevtools, devtoolsIds as ids } from '../../client/devtools/index.js';
import type { BrokerClient, BrokerDiagnostics, QuerySnapshot, QuerySpec } from '../../client/index.js';
import type { PendingChange } from '../../contract/appRequests.js';
import { AuthProvider } from '../../client/react/index.js';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const NOW = Date.now();

/** What a broker with two tabs might say; the watching panel is in tab 2. */
function diagnostics(panel: string, change: Partial<BrokerDiagnostics> = {}): BrokerDiagnostics {
  return {
    host: {
      mode: 'shared-worker',
      brokerId: '0123456789abcdef',
      version: '0.1.0',
      startedAtMillis: NOW - 60_000,
      storage: 'indexeddb',
    },
    recordingSinceMillis: NOW - 50_000,
    tabs: [
      { tab: 1, subscriptions: 3, panels: ['another-panel'] },
      { tab: 2, subscriptions: 4, panels: [panel] },
    ],
    session: {
      status: 'signed-in',
      userId: 'a-user-id',
      accessTokenExpiresAtMillis: NOW + 5 * 60_000,
      renewals: 3,
      lastEnd: null,
    },
    adminSession: null,
    cache: [
      {
        key: '["currentUser",{}]',
        query: { kind: 'currentUser' },
        scope: 'user',
        current: true,
        tabs: [1, 2],
        subscribers: 2,
        status: 'success',
        isFetching: false,
        updatedAtMillis: NOW - 2000,
        invalidated: false,
        lastError: null,
      },
      {
        key: '["teams",{}]',
        query: { kind: 'teams' },
        scope: 'user',
        current: false,
        tabs: [1],
        subscribers: 1,
        status: 'error',
        isFetching: false,
        updatedAtMillis: NOW - 9000,
        invalidated: false,
        lastError: { code: 'NETWORK_UNREACHABLE', status: null, atMillis: NOW - 9000 },
      },
    ],
    requests: [
      {
        id: 1,
        method: 'POST',
        path: '/auth/password/sign-in',
        startedAtMillis: NOW - 3000,
        durationMillis: 80,
        outcome: 'success',
        status: 200,
        code: null,
        attempts: [{ status: 200, durationMillis: 80, retry: null }],
        cause: { tab: 2, via: 'action', name: 'signInWithPassword' },
        callers: 1,
      },
      {
        id: 2,
        method: 'GET',
        path: '/users/me',
        startedAtMillis: NOW - 2500,
        durationMillis: 1200,
        outcome: 'success',
        status: 200,
        code: null,
        attempts: [
          { status: 429, durationMillis: 10, retry: { reason: 'rate-limited', delayMillis: 1000 } },
          { status: 200, durationMillis: 30, retry: null },
        ],
        cause: { tab: 1, via: 'session', name: 'currentUser' },
        callers: 2,
      },
    ],
    requestsDropped: 0,
    connectivity: {
      state: 'online',
      sinceMillis: NOW - 40_000,
      browserOnline: true,
      consecutiveFailures: 0,
      lastError: null,
      lastSuccessAtMillis: NOW - 1000,
      diagnostics: null,
    },
    connectivityHistory: [
      {
        atMillis: NOW - 50_000,
        state: 'offline',
        browserOnline: false,
        consecutiveFailures: 1,
        lastError: { code: 'NETWORK_UNREACHABLE', status: null },
        diagnostics: null,
      },
      {
        atMillis: NOW - 40_000,
        state: 'online',
        browserOnline: true,
        consecutiveFailures: 0,
        lastError: null,
        diagnostics: null,
      },
    ],
    warnings: [],
    ...change,
  };
}

/** A client that answers the diagnostics and pending-changes queries, as the broker would push them. */
function stubClient(pending: PendingChange[] = []) {
  const listeners = new Set<() => void>();
  let snapshot: QuerySnapshot | undefined;
  let panel = '';
  const subscribedPanels: string[] = [];
  const pendingSnapshot: QuerySnapshot = {
    status: 'success',
    data: pending,
    error: null,
    updatedAtMillis: NOW,
    isFetching: false,
  };
  const client = {
    subscribe: vi.fn((query: QuerySpec, listener: () => void) => {
      if (query.kind === 'pendingChanges') return () => undefined;
      expect(query.kind).toBe('diagnostics');
      // A closed devtools watches without naming a panel; an open one names itself (the broker then lists its tab).
      const named = (query as { panel?: string }).panel ?? '';
      subscribedPanels.push(named);
      if (named !== panel) snapshot = undefined;
      panel = named;
      snapshot ??= {
        status: 'success',
        data: diagnostics(panel),
        error: null,
        updatedAtMillis: NOW,
        isFetching: false,
      };
      listeners.add(listener);
      return () => listeners.delete(listener);
    }),
    getSnapshot: vi.fn((query: QuerySpec) => (query.kind === 'pendingChanges' ? pendingSnapshot : snapshot)),
    refetch: vi.fn(async () => undefined),
  };
  return {
    client: client as unknown as BrokerClient & typeof client,
    push(change: Partial<BrokerDiagnostics>) {
      snapshot = {
        status: 'success',
        data: diagnostics(panel, change),
        error: null,
        updatedAtMillis: Date.now(),
        isFetching: false,
      };
      for (const listener of listeners) listener();
    },
    get panel() {
      return panel;
    },
    subscribedPanels,
  };
}

async function openPanel(): Promise<HTMLElement> {
  fireEvent.click(screen.getByTestId(ids.toggle));
  // The panel is a lazy module: its first load (transformed on demand in tests) can take over a second under load.
  return screen.findByTestId(ids.panel, {}, { timeout: 10_000 });
}

describe('<AuthbrokerDevtools />', () => {
  it('closed, it is a toggle with the session and the renewals; watching starts at once, the panel is not loaded', () => {
    const { client } = stubClient();
    render(<AuthbrokerDevtools client={client} />);
    expect(screen.getByTestId(ids.session).textContent).toBe('signed-in');
    expect(screen.getByTestId(ids.renewals).textContent).toBe('3');
    expect(screen.getByTestId(ids.toggle).getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByTestId(ids.panel)).toBeNull();
    // Watching starts at mount (the log is there when the panel opens), without naming a panel: none is open.
    expect(client.subscribe).toHaveBeenCalledWith({ kind: 'diagnostics' }, expect.any(Function));
  });

  it('open, it shows the host, this tab, the cache and the request log with causes and callers', async () => {
    const { client } = stubClient();
    render(
      <AuthProvider client={client}>
        <AuthbrokerDevtools />
      </AuthProvider>,
    );
    const panel = await openPanel();
    expect(within(panel).getByTestId(ids.mode).textContent).toBe('shared-worker');
    expect(within(panel).getByTestId(ids.modeReason).textContent).toMatch(/SharedWorker/);
    expect(within(panel).getByTestId(ids.thisTab).textContent).toBe('tab 2');
    expect(within(panel).getByTestId(ids.expiry).textContent).toMatch(/^expires in [45]:\d\d$/);

    const [user, teams] = within(panel).getAllByTestId(ids.cacheRow);
    expect(user!.dataset).toMatchObject({ kind: 'currentUser', current: 'true', tabs: '2' });
    expect(user!.textContent).toContain('2 tabs (tab 1, this tab)');
    expect(teams!.textContent).toContain('previous session');
    expect(teams!.textContent).toContain('NETWORK_UNREACHABLE');
    // Only the current session's data can be refetched.
    expect(within(teams!).queryByTestId(ids.refetch)).toBeNull();
    fireEvent.click(within(user!).getByTestId(ids.refetch));
    expect(client.refetch).toHaveBeenCalledWith({ kind: 'currentUser' });

    // Newest first.
    const [fetched, signIn] = within(panel).getAllByTestId(ids.requestRow);
    expect(fetched!.dataset).toMatchObject({
      method: 'GET',
      path: '/users/me',
      callers: '2',
      tab: '1',
      via: 'session',
      outcome: 'success',
    });
    expect(fetched!.textContent).toContain('429 → rate-limited, 1.0 s; 200');
    expect(signIn!.textContent).toContain('this tab · action signInWithPassword');
    expect(
      within(panel)
        .getAllByTestId(ids.connectivityChange)
        .map((row) => row.dataset.state),
    ).toEqual(['online', 'offline']);
  });

  it('lists the writes that wait out an outage, and why one was refused', async () => {
    const { client } = stubClient([
      {
        id: 'a',
        kind: 'action',
        label: 'updateUser',
        createdAtMillis: NOW - 5_000,
        state: 'waiting',
        attempts: 0,
        error: null,
      },
      {
        id: 'b',
        kind: 'request',
        label: 'PUT /api/notes/1',
        createdAtMillis: NOW - 2_000,
        state: 'refused',
        attempts: 1,
        error: { kind: 'http-status', code: 'HTTP_STATUS_ERROR', message: 'Conflict', status: 409, body: '' },
      },
    ]);
    render(
      <AuthProvider client={client}>
        <AuthbrokerDevtools />
      </AuthProvider>,
    );
    const panel = await openPanel();
    const rows = within(panel).getAllByTestId(ids.pendingRow);
    expect(rows.map((row) => [row.dataset.label, row.dataset.state])).toEqual([
      ['updateUser', 'waiting'],
      ['PUT /api/notes/1', 'refused'],
    ]);
    expect(rows[1]!.textContent).toContain('409');
  });

  it('follows what the broker pushes, and remembers whether it was open', async () => {
    const stub = stubClient();
    const { unmount } = render(<AuthbrokerDevtools client={stub.client} />);
    const panel = await openPanel();
    act(() =>
      stub.push({
        session: {
          status: 'signed-out',
          userId: null,
          accessTokenExpiresAtMillis: null,
          renewals: 3,
          lastEnd: {
            reason: 'session-revoked',
            atMillis: NOW,
            message: 'Your session was revoked or has expired. Please sign in again.',
            code: 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED',
          },
        },
      }),
    );
    await waitFor(() => expect(within(panel).getByTestId(ids.endReason).textContent).toBe('session-revoked'));
    expect(within(panel).getByTestId(ids.session).textContent).toBe('signed-out');
    unmount();

    render(<AuthbrokerDevtools client={stub.client} />);
    expect(await screen.findByTestId(ids.panel, {}, { timeout: 10_000 })).toBeTruthy();
    fireEvent.click(screen.getByTestId(ids.close));
    expect(screen.getByTestId(ids.toggle)).toBeTruthy();
    expect(localStorage.getItem('authbroker-devtools:open')).toBe('0');
  });

  it('a closed devtools names no panel (its tab is not listed as having the devtools open); opened, it names its own', async () => {
    const stub = stubClient();
    render(<AuthbrokerDevtools client={stub.client} />);
    await screen.findByTestId(ids.toggle);
    expect(stub.subscribedPanels.every((named) => named === '')).toBe(true);
    await openPanel();
    expect(stub.subscribedPanels.at(-1)).toMatch(/^panel-/);
  });

  it('says where the request log is since when it records, and why an empty log is not "no requests"', async () => {
    const stub = stubClient();
    render(<AuthbrokerDevtools client={stub.client} initialIsOpen />);
    const panel = await screen.findByTestId(ids.panel);
    const note = () => within(panel).getByTestId(ids.recordingNote).textContent;
    expect(note()).toMatch(
      /^Recording since \d\d:\d\d:\d\d, when authbroker's devtools were first shown in a tab of this broker \(it started at \d\d:\d\d:\d\d\); requests made before then are not listed\.$/,
    );
    // A navigation restarted the broker; the user on the page was fetched before this panel mounted.
    act(() => stub.push({ requests: [], recordingSinceMillis: NOW - 100 }));
    await waitFor(() => expect(note()).toMatch(/None since: what tabs show was fetched before recording began/));
    expect(within(panel).getByText('Requests (0)')).toBeTruthy();
    // The note sits with the log, not only in the header.
    expect(within(panel).getByTestId(ids.recordingNote).closest('section')?.textContent).toContain('Requests (0)');
  });

  it('names why the broker runs where it does when a better host did not start', async () => {
    const stub = stubClient();
    render(<AuthbrokerDevtools client={stub.client} initialIsOpen />);
    const fallback = 'The broker runs in in-process mode because a better host did not start: shared-worker: blocked.';
    act(() =>
      stub.push({
        host: { mode: 'in-process', brokerId: 'x', version: '0.1.0', startedAtMillis: NOW, storage: 'memory' },
        warnings: [fallback],
      }),
    );
    await waitFor(() => expect(screen.getByTestId(ids.modeReason).textContent).toBe(fallback));
    expect(screen.getByTestId(ids.storage).textContent).toBe('memory');
    expect(screen.getByTestId(ids.warnings).textContent).toContain(fallback);
  });
});
