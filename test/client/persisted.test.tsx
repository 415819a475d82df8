import { act, render, screen, waitFor } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { QuerySnapshot } from '../../client/index.js';
import { keepSnapshots, MAX_PERSISTED_BYTES } from '../../client/kept/keptCopyWriter.js';
import { persistedSnapshots } from '../../client/kept/keptCopyReader.js';
import { AuthProvider, useQuery, useTeams, useUser } from '../../client/react/index.js';
import { hashQueryKey } from '../../contract/queryKey.js';
import { endpoints } from '../../protocol/index.js';
import { transportFor, useEmulator } from '../support/emulator.js';
import { createUser, newClient, resetBrowser } from './react/helpers.js';

/**
 * A new tab shows the user before the broker answers: tabs keep a copy of what they showed, and
 * the next one renders it on its very first render, marked stale, until the broker revalidates.
 */
const emulator = useEmulator();
afterEach(resetBrowser);

const STORAGE_KEY = () => `authbroker:snapshot:${emulator().projects.demo.id}@${emulator().url}`;

/** A first tab: signs in, shows the user and the teams, lets the copy be written. */
async function firstVisit(options: Parameters<typeof newClient>[1] = {}) {
  const em = emulator();
  const account = await createUser(em);
  await endpoints.createTeam(transportFor(em, 'server'), { display_name: 'Kept team', creator_user_id: account.id });
  const client = newClient(em, options);
  await client.signInWithPassword({ email: account.email, password: account.password });
  const seen = { user: false, teams: false };
  const unsubscribe = [
    client.subscribe(
      { kind: 'currentUser' },
      () => void (seen.user = client.getSnapshot({ kind: 'currentUser' })?.data !== undefined),
    ),
    client.subscribe(
      { kind: 'teams' },
      () =>
        void (seen.teams = ((client.getSnapshot({ kind: 'teams' })?.data as unknown[] | undefined) ?? []).length > 0),
    ),
  ];
  await waitFor(() => expect(seen).toEqual({ user: true, teams: true }));
  // The copy is written after a burst of deliveries.
  await waitFor(() => expect(localStorage.getItem(STORAGE_KEY())).toContain(account.email));
  await waitFor(() => expect(localStorage.getItem(STORAGE_KEY())).toContain('Kept team'));
  return { account, client, unsubscribe: () => unsubscribe.forEach((u) => u()) };
}

/** Records what each render showed. */
function Screen({ renders }: { renders: string[] }) {
  const user = useUser();
  const teams = useTeams();
  const state = useQuery({ kind: 'currentUser' });
  renders.push(`${user?.primaryEmail ?? 'nobody'}|${teams.length}|${state.isStale ? 'stale' : 'fresh'}`);
  return <p data-testid="screen">{renders.at(-1)}</p>;
}

describe('instant boot: a new tab renders from the kept copy', () => {
  it('the very first render shows the user and teams (stale), with no Suspense fallback, then the broker confirms them', async () => {
    const { account, client: first } = await firstVisit();
    first.close();
    const next = newClient(emulator());
    const renders: string[] = [];
    render(
      <AuthProvider client={next}>
        <Suspense fallback={<p data-testid="screen">fallback</p>}>
          <Screen renders={renders} />
        </Suspense>
      </AuthProvider>,
    );
    expect(renders[0]).toBe(`${account.email}|1|stale`);
    await waitFor(() => expect(screen.getByTestId('screen').textContent).toBe(`${account.email}|1|fresh`));
    expect(renders).not.toContain('fallback');
    expect(renders.some((r) => r.startsWith('nobody'))).toBe(false);
  });

  it('updatedAt says how old the kept value is', async () => {
    const { client: first } = await firstVisit();
    const keptAt = (first.getSnapshot({ kind: 'currentUser' }) as QuerySnapshot).updatedAtMillis;
    first.close();
    const next = newClient(emulator());
    let seen: { isStale: boolean; updatedAt: number | null } | undefined;
    function Age() {
      const { isStale, updatedAt } = useQuery({ kind: 'currentUser' });
      seen ??= { isStale, updatedAt };
      return null;
    }
    render(
      <AuthProvider client={next}>
        <Age />
      </AuthProvider>,
    );
    expect(seen).toEqual({ isStale: true, updatedAt: keptAt });
  });

  it('signing out deletes the copy: the next tab knows nobody until the broker says so', async () => {
    const { client } = await firstVisit();
    await act(() => client.signOut());
    await waitFor(() => expect(localStorage.getItem(STORAGE_KEY())).toBeNull());
    const next = newClient(emulator());
    expect(next.getSnapshot({ kind: 'currentUser' })).toBeUndefined();
  });

  it('after a sign-out, a component mounted later in the same tab never shows the kept copy of the old user', async () => {
    const { client: first } = await firstVisit();
    first.close();
    const next = newClient(emulator());
    // The new tab starts from the copy, then the user signs out.
    expect((next.getSnapshot({ kind: 'teams' })?.data as unknown[] | undefined)?.length).toBe(1);
    const unsubscribe = next.subscribe({ kind: 'currentUser' }, () => undefined);
    await waitFor(() => expect(next.getSnapshot({ kind: 'currentUser' })?.isStale).toBeFalsy());
    await next.signOut();
    await waitFor(() => expect(next.getSnapshot({ kind: 'currentUser' })?.data).toBeNull());
    // A teams hook mounted now sees no teams of the old user, not even for a render.
    expect(next.getSnapshot({ kind: 'teams' })?.data ?? []).toEqual([]);
    unsubscribe();
  });

  it("another user's sign-in replaces the copy: one user's data is never kept under another's", async () => {
    const { client, account } = await firstVisit();
    const other = await createUser(emulator());
    await client.signInWithPassword({ email: other.email, password: other.password });
    await waitFor(() => expect(localStorage.getItem(STORAGE_KEY())).toContain(other.email), {
      timeout: 3000,
      onTimeout: (e) =>
        new Error(
          `${e.message}\nstored: ${localStorage.getItem(STORAGE_KEY())}\nsnapshot: ${JSON.stringify(client.getSnapshot({ kind: 'currentUser' }))}`,
        ),
    });
    const kept = JSON.parse(localStorage.getItem(STORAGE_KEY())!) as {
      userId: string;
      entries: Record<string, { data: unknown }>;
    };
    expect(kept.userId).toBe(other.id);
    expect(JSON.stringify(kept)).not.toContain(account.email);
    // The first user's team is not among the second user's teams.
    expect(JSON.stringify(kept.entries[hashQueryKey({ kind: 'teams' })]?.data ?? [])).not.toContain('Kept team');
  });

  it('persistSnapshot: false keeps nothing, and deletes what an earlier visit kept', async () => {
    const { client } = await firstVisit();
    client.close();
    expect(localStorage.getItem(STORAGE_KEY())).not.toBeNull();
    const next = newClient(emulator(), { persistSnapshot: false });
    expect(localStorage.getItem(STORAGE_KEY())).toBeNull();
    expect(next.getSnapshot({ kind: 'currentUser' })).toBeUndefined();
    await next.read({ kind: 'currentUser' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(localStorage.getItem(STORAGE_KEY())).toBeNull();
  });

  it('the copy never holds a token', async () => {
    const { client } = await firstVisit();
    const token = (await client.getAccessToken())!;
    const kept = localStorage.getItem(STORAGE_KEY())!;
    expect(kept).not.toContain(token);
    expect(kept).not.toMatch(/refresh|eyJ/);
  });
});

describe('offline boot', () => {
  it('reloaded with no network: the user is shown, reads do not fail, writes fail at once with NETWORK_OFFLINE, and the value refreshes when the network returns', async () => {
    const { account, client: first } = await firstVisit();
    first.close();
    // Somebody renames the user while the next visit is offline.
    await endpoints.updateUser(transportFor(emulator(), 'server'), account.id, {
      display_name: 'Renamed while offline',
    });
    let online = false;
    const realFetch = globalThis.fetch;
    vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) =>
      online ? realFetch(input, init) : Promise.reject(new TypeError('Failed to fetch')),
    );
    // The browser knows it has no network (a service that does not answer would be NETWORK_UNREACHABLE instead).
    const onLine = vi.spyOn(navigator, 'onLine', 'get').mockImplementation(() => online);
    const next = newClient(emulator());
    const errors: unknown[] = [];
    function Profile() {
      const user = useUser();
      const { error } = useQuery({ kind: 'currentUser' });
      if (error) errors.push(error);
      return <p data-testid="name">{`${user?.primaryEmail ?? 'nobody'}|${user?.displayName ?? ''}`}</p>;
    }
    render(
      <AuthProvider client={next}>
        <Profile />
      </AuthProvider>,
    );
    expect(screen.getByTestId('name').textContent).toBe(`${account.email}|`);
    await waitFor(async () => expect((await next.status()).connectivity.state).toBe('offline'), { timeout: 5000 });
    await expect(next.updateUser({ displayName: 'x' })).rejects.toMatchObject({ code: 'NETWORK_OFFLINE' });
    expect(screen.getByTestId('name').textContent).toBe(`${account.email}|`);
    expect(errors).toEqual([]);
    // The network returns (the tab hears `online`): the fresh value arrives by itself.
    online = true;
    window.dispatchEvent(new Event('online'));
    await waitFor(() => expect(screen.getByTestId('name').textContent).toBe(`${account.email}|Renamed while offline`), {
      timeout: 3000,
    });
    onLine.mockRestore();
  });
});

describe('PersistedSnapshots', () => {
  const spec = { kind: 'currentUser' } as const;
  const key = hashQueryKey(spec);
  const user = (id: string, extra = ''): QuerySnapshot => ({
    status: 'success',
    data: { id, primaryEmail: `${id}@example.com`, extra },
    error: null,
    updatedAtMillis: 1,
    isFetching: false,
    userId: id,
  });

  it('drops a damaged or foreign value instead of trusting it', () => {
    for (const bad of [
      '{not json',
      JSON.stringify({ v: 2, userId: 'u', entries: {} }),
      JSON.stringify({ v: 1, userId: 5 }),
    ]) {
      localStorage.setItem('k', bad);
      expect(persistedSnapshots('k', true).read(key, spec)).toBeUndefined();
      expect(localStorage.getItem('k')).toBeNull();
    }
  });

  it('user data tagged for another user, or untagged, is not kept', async () => {
    const remember = keepSnapshots(persistedSnapshots('k', true));
    remember(key, spec, user('alice'));
    const teams = { kind: 'teams' } as const;
    remember(hashQueryKey(teams), teams, {
      status: 'success',
      data: ['bob-team'],
      error: null,
      updatedAtMillis: 2,
      isFetching: false,
      userId: 'bob',
    });
    remember(hashQueryKey(teams), teams, {
      status: 'success',
      data: ['untagged'],
      error: null,
      updatedAtMillis: 3,
      isFetching: false,
    });
    await new Promise((resolve) => setTimeout(resolve, 80));
    const stored = localStorage.getItem('k')!;
    // bob's data started bob's record (alice's is gone), the untagged one was ignored.
    expect(JSON.parse(stored).userId).toBe('bob');
    expect(stored).not.toContain('alice');
    expect(stored).not.toContain('untagged');
  });

  it('is bounded: a copy larger than the limit is not written', async () => {
    const kept = persistedSnapshots('k', true);
    keepSnapshots(kept)(key, spec, user('big', 'x'.repeat(MAX_PERSISTED_BYTES)));
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(localStorage.getItem('k')).toBeNull();
  });

  it('a sign-out seen by another tab (the copy removed) is not undone by this tab’s pending write', async () => {
    localStorage.setItem('k', JSON.stringify({ v: 1, userId: 'alice', savedAtMillis: 1, entries: {} }));
    const kept = persistedSnapshots('k', true);
    expect(kept.read(key, spec)).toBeUndefined();
    const teams = { kind: 'teams' } as const;
    keepSnapshots(kept)(hashQueryKey(teams), teams, {
      status: 'success',
      data: ['t'],
      error: null,
      updatedAtMillis: 2,
      isFetching: false,
      userId: 'alice',
    });
    localStorage.removeItem('k');
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(localStorage.getItem('k')).toBeNull();
  });

  it('another tab’s change to the copy (a sign-out there) is seen once the writer has loaded with the connection', () => {
    const aliceRecord = {
      v: 1,
      userId: 'alice',
      savedAtMillis: 1,
      entries: { [key]: { data: { id: 'alice' }, updatedAtMillis: 1 } },
    };
    localStorage.setItem('k', JSON.stringify(aliceRecord));
    const kept = persistedSnapshots('k', true);
    expect(kept.load()?.userId).toBe('alice');
    keepSnapshots(kept);
    const before = kept.version;
    localStorage.removeItem('k');
    dispatchEvent(new StorageEvent('storage', { key: 'k' }));
    expect(kept.version).toBe(before + 1);
    expect(kept.load()).toBeNull();
  });

  describe('each kept entry is checked for its kind before it is shown', () => {
    const now = Date.now();
    const aliceUser = {
      id: 'alice',
      primaryEmail: 'a@example.com',
      primaryEmailVerified: true,
      displayName: 'Alice',
      profileImageUrl: null,
      signedUpAtMillis: 1,
      clientMetadata: { any: ['thing'] },
      clientReadOnlyMetadata: null,
      hasPassword: true,
      otpAuthEnabled: false,
      passkeyAuthEnabled: false,
      authWithEmail: true,
      requiresTotpMfa: false,
      oauthProviders: [{ id: 'github', accountId: '1', email: null }],
      selectedTeamId: null,
      selectedTeam: null,
      isAnonymous: false,
      isRestricted: false,
      restrictedReason: null,
      restrictedByAdmin: false,
      restrictedByAdminReason: null,
    };
    const aTeam = {
      id: 't1',
      displayName: 'Team',
      profileImageUrl: null,
      clientMetadata: {},
      clientReadOnlyMetadata: {},
    };
    const specs = {
      currentUser: { kind: 'currentUser' },
      teams: { kind: 'teams' },
      project: { kind: 'project' },
    } as const;
    const store = (entries: Record<string, unknown>, over: Record<string, unknown> = {}) =>
      localStorage.setItem(
        'k',
        JSON.stringify({ v: 1, userId: 'alice', savedAtMillis: now - 10, createdAtMillis: now - 20, entries, ...over }),
      );
    const entry = (data: unknown, updatedAtMillis = now - 5) => ({ data, updatedAtMillis });

    it('an entry of the right shape is shown; of the wrong shape (a string for teams, a field of the wrong type, another user) it is not, and it leaves the copy', async () => {
      const cases: Array<[keyof typeof specs, unknown, boolean]> = [
        ['currentUser', aliceUser, true],
        ['teams', [aTeam], true],
        ['teams', 'not a list', false],
        ['teams', [{ ...aTeam, displayName: { $$typeof: 'react.element' } }], false],
        ['teams', [{ id: 't1' }], false],
        ['currentUser', { ...aliceUser, id: 'mallory' }, false],
        ['currentUser', { ...aliceUser, oauthProviders: 'github' }, false],
        ['currentUser', { ...aliceUser, selectedTeam: { id: 5 } }, false],
        ['currentUser', null, false],
        ['project', { id: 'p', displayName: 'P', config: { signUpEnabled: true } }, false],
      ];
      for (const [kind, data, shown] of cases) {
        const key = hashQueryKey(specs[kind]);
        store({ [key]: entry(data) });
        const kept = persistedSnapshots('k', true);
        expect(kept.read(key, specs[kind])?.data, `${kind}: ${JSON.stringify(data)}`).toEqual(shown ? data : undefined);
        // Written back by the writer, which loads with the connection.
        keepSnapshots(kept);
        await new Promise((resolve) => setTimeout(resolve, 80));
        expect(JSON.parse(localStorage.getItem('k')!).entries[key] !== undefined, kind).toBe(shown);
      }
    });

    it('a date in the future is not believed: the entry is dropped and the broker’s next value is kept', async () => {
      const key = hashQueryKey(specs.currentUser);
      store({ [key]: entry(aliceUser, now + 365 * 24 * 3600_000) });
      const kept = persistedSnapshots('k', true);
      expect(kept.read(key, specs.currentUser)).toBeUndefined();
      const fresh = { ...aliceUser, displayName: 'Alice (fresh)' };
      keepSnapshots(kept)(key, specs.currentUser, {
        status: 'success',
        data: fresh,
        error: null,
        updatedAtMillis: now,
        isFetching: false,
      });
      await new Promise((resolve) => setTimeout(resolve, 80));
      expect(persistedSnapshots('k', true).read(key, specs.currentUser)?.data).toEqual(fresh);
    });

    it('a record dated in the future (which would outrank every real copy) is dropped whole', () => {
      const key = hashQueryKey(specs.currentUser);
      for (const over of [{ createdAtMillis: now + 3600_000 }, { savedAtMillis: now + 3600_000 }, { entries: [] }]) {
        store({ [key]: entry(aliceUser) }, over);
        expect(persistedSnapshots('k', true).read(key, specs.currentUser), JSON.stringify(over)).toBeUndefined();
        expect(localStorage.getItem('k')).toBeNull();
      }
    });
  });
});

describe('a damaged kept copy cannot break a later visit', () => {
  function TeamNames() {
    const teams = useTeams();
    return <p data-testid="teams">{teams.map((team) => team.displayName).join(',')}</p>;
  }

  it('a teams entry that is a string: the next tab renders without crashing and shows the teams from the broker', async () => {
    const { client: first } = await firstVisit();
    first.close();
    const stored = JSON.parse(localStorage.getItem(STORAGE_KEY())!) as { entries: Record<string, { data: unknown }> };
    stored.entries[hashQueryKey({ kind: 'teams' })]!.data = 'not a list';
    localStorage.setItem(STORAGE_KEY(), JSON.stringify(stored));
    const next = newClient(emulator());
    render(
      <AuthProvider client={next}>
        <Suspense fallback={<p data-testid="teams">loading</p>}>
          <TeamNames />
        </Suspense>
      </AuthProvider>,
    );
    await waitFor(() => expect(screen.getByTestId('teams').textContent).toBe('Kept team'));
  });
});
