import { act, render, screen, waitFor } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClientError, type BrokerClient, type SessionInfo, type User } from '../../../client/index.js';
import {
  AuthProvider,
  useBrokerStatus,
  useConnectedAccount,
  useContactChannels,
  usePermission,
  useSession,
  useSuspenseConnectedAccount,
  useTeams,
  useUser,
  useUserState,
  type UseUserOptions,
} from '../../../client/react/index.js';
import { endpoints } from '../../../protocol/index.js';
import { transportFor, useEmulator } from '../../support/emulator.js';
import {
  Boundary,
  createUser,
  newClient,
  PAGE_ORIGIN,
  quietConsoleErrors,
  recordNavigations,
  resetBrowser,
  snakeKeys,
} from './helpers.js';

const emulator = useEmulator();
afterEach(resetBrowser);

interface Frame {
  session: SessionInfo['status'];
  statusSession: SessionInfo['status'] | null;
  email: string | null;
  teams: string[];
  channels: string[];
}

/** Every hook in one component; each render is recorded. */
function Dashboard({ frames }: { frames: Frame[] }) {
  const session = useSession();
  const status = useBrokerStatus();
  const user = useUser();
  const teams = useTeams();
  const channels = useContactChannels();
  frames.push({
    session: session.status,
    statusSession: status?.session.status ?? null,
    email: user?.primaryEmail ?? null,
    teams: teams.map((t) => t.displayName),
    channels: channels.map((c) => c.value),
  });
  return <p data-testid="dashboard">{user?.primaryEmail ?? 'nobody'}</p>;
}

function Who({
  testId,
  onUser,
  or,
}: {
  testId: string;
  onUser?: (user: User | null) => void;
  or?: UseUserOptions['or'];
}) {
  const user = useUser(or === undefined ? {} : { or });
  onUser?.(user);
  return <p data-testid={testId}>{user === null ? 'nobody' : `${user.primaryEmail}|${user.displayName ?? ''}`}</p>;
}

const text = (testId: string) => screen.getByTestId(testId).textContent;

describe('hooks follow the session', () => {
  it('a sign-in reaches every mounted hook, and no render mixes the old and the new session', async () => {
    const em = emulator();
    const account = await createUser(em);
    const team = await endpoints.createTeam(transportFor(em, 'server'), {
      display_name: 'Hooks team',
      creator_user_id: account.id,
    });
    const client = newClient(em);
    const frames: Frame[] = [];
    render(
      <AuthProvider client={client}>
        <Dashboard frames={frames} />
        <Who testId="elsewhere" />
      </AuthProvider>,
    );
    await waitFor(() => expect(frames.at(-1)).toMatchObject({ session: 'signed-out', statusSession: 'signed-out' }));
    const before = frames.length;

    await act(() => client.signInWithPassword({ email: account.email, password: account.password }));
    await waitFor(() =>
      expect(frames.at(-1)).toEqual({
        session: 'signed-in',
        statusSession: 'signed-in',
        email: account.email,
        teams: [team.display_name],
        channels: [account.email],
      }),
    );
    expect(text('elsewhere')).toBe(`${account.email}|`);

    const after = frames.slice(before);
    for (const frame of after) {
      // The session and the broker status come in one delivery, so one render shows both.
      if (frame.statusSession !== null) expect(frame.statusSession).toBe(frame.session);
      // Data of the new session never shows next to the old session state.
      if (frame.email !== null || frame.teams.length > 0 || frame.channels.length > 0)
        expect(frame.session).toBe('signed-in');
    }
    // Once there, the user does not flicker back to nobody.
    const firstWithUser = after.findIndex((f) => f.email !== null);
    expect(after.slice(firstWithUser).every((f) => f.email === account.email)).toBe(true);
  });

  it('a sign-out empties every hook', async () => {
    const em = emulator();
    const account = await createUser(em);
    const client = newClient(em);
    await client.signInWithPassword({ email: account.email, password: account.password });
    const frames: Frame[] = [];
    render(
      <AuthProvider client={client}>
        <Dashboard frames={frames} />
      </AuthProvider>,
    );
    await waitFor(() => expect(frames.at(-1)?.channels).toEqual([account.email]));
    await act(() => client.signOut());
    await waitFor(() =>
      expect(frames.at(-1)).toEqual({
        session: 'signed-out',
        statusSession: 'signed-out',
        email: null,
        teams: [],
        channels: [],
      }),
    );
  });
});

describe('two tabs, each with its own in-page broker, sharing IndexedDB and BroadcastChannel', () => {
  function mountTab(client: BrokerClient, testId: string) {
    const seen: { user: User | null } = { user: null };
    render(
      <AuthProvider client={client}>
        <Who testId={testId} onUser={(user) => (seen.user = user)} />
      </AuthProvider>,
    );
    return seen;
  }

  it('a sign-in and an updateUser in one tab show in the other with identical values', async () => {
    const em = emulator();
    const account = await createUser(em);
    const [clientA, clientB] = [newClient(em), newClient(em)];
    const a = mountTab(clientA, 'tab-a');
    const b = mountTab(clientB, 'tab-b');
    await waitFor(() => expect([text('tab-a'), text('tab-b')]).toEqual(['nobody', 'nobody']));
    // Two brokers, one per tab: only IndexedDB and the BroadcastChannel connect them.
    expect((await clientA.status()).brokerId).not.toBe((await clientB.status()).brokerId);

    await act(() => clientA.signInWithPassword({ email: account.email, password: account.password }));
    await waitFor(() => expect([text('tab-a'), text('tab-b')]).toEqual([`${account.email}|`, `${account.email}|`]));
    expect(b.user).toEqual(a.user);
    expect(b.user).not.toBe(a.user);

    const metadata = { favourite_colour: 'teal', nested_keys: { keep_me: [1, { also_me: true }] } };
    let updated!: User;
    await act(async () => {
      updated = await clientA.updateUser({ displayName: 'Renamed in A', clientMetadata: metadata });
    });
    await waitFor(() => expect(text('tab-b')).toBe(`${account.email}|Renamed in A`));
    expect(text('tab-a')).toBe(`${account.email}|Renamed in A`);
    expect(b.user).toEqual(updated);
    expect(a.user).toEqual(updated);
    expect(b.user!.clientMetadata).toEqual(metadata);
  });

  it('objects handed to React are camelCase, converted once; metadata keys are the app’s own', async () => {
    const em = emulator();
    const metadata = { snake_case_key: { inner_key: 'x' }, camelKey: 1 };
    const account = await createUser(em, { client_metadata: metadata, display_name: 'Camel' });
    const client = newClient(em);
    await client.signInWithPassword({ email: account.email, password: account.password });
    const seen = mountTab(client, 'tab');
    await waitFor(() => expect(seen.user).not.toBeNull());
    const user = seen.user!;
    expect(user).toMatchObject({
      id: account.id,
      primaryEmail: account.email,
      primaryEmailVerified: false,
      displayName: 'Camel',
      hasPassword: true,
      selectedTeam: null,
    });
    expect(typeof user.signedUpAtMillis).toBe('number');
    expect(user).not.toHaveProperty('primary_email');
    expect(user).not.toHaveProperty('signed_up_at_millis');
    expect(snakeKeys(user)).toEqual([]);
    expect(user.clientMetadata).toEqual(metadata);
    expect(await client.read({ kind: 'currentUser' })).toEqual(user);
  });
});

describe('useUser when nobody is signed in', () => {
  it("'throw' throws a ClientError NOT_SIGNED_IN into the error boundary", async () => {
    quietConsoleErrors();
    const client = newClient(emulator());
    const caught: unknown[] = [];
    render(
      <AuthProvider client={client}>
        <Boundary onError={(error) => caught.push(error)}>
          <Who testId="who" or="throw" />
        </Boundary>
      </AuthProvider>,
    );
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('ClientError:NOT_SIGNED_IN'));
    expect(caught[0]).toBeInstanceOf(ClientError);
    expect((caught[0] as ClientError).code).toBe('NOT_SIGNED_IN');
  });

  it("'throw' renders the user when signed in", async () => {
    const em = emulator();
    const account = await createUser(em);
    const client = newClient(em);
    await client.signInWithPassword({ email: account.email, password: account.password });
    render(
      <AuthProvider client={client}>
        <Boundary>
          <Who testId="who" or="throw" />
        </Boundary>
      </AuthProvider>,
    );
    await waitFor(() => expect(text('who')).toBe(`${account.email}|`));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it("'return-null' (and the default) return null without navigating", async () => {
    const { assign } = recordNavigations();
    const client = newClient(emulator());
    render(
      <AuthProvider client={client}>
        <Who testId="explicit" or="return-null" />
        <Who testId="default" />
      </AuthProvider>,
    );
    await waitFor(() => expect(client.getSnapshot({ kind: 'currentUser' })?.status).toBe('success'));
    expect([text('explicit'), text('default')]).toEqual(['nobody', 'nobody']);
    expect(assign).not.toHaveBeenCalled();
  });

  it("'redirect' sends the browser to the sign-in page with the way back, once", async () => {
    history.replaceState(null, '', '/account/settings?tab=security');
    const { assign } = recordNavigations();
    const client = newClient(emulator());
    render(
      <AuthProvider client={client}>
        <Who testId="who" or="redirect" />
      </AuthProvider>,
    );
    await waitFor(() => expect(assign).toHaveBeenCalledTimes(1));
    const target = new URL(assign.mock.calls[0]![0] as string, PAGE_ORIGIN);
    expect(target.origin + target.pathname).toBe(`${PAGE_ORIGIN}/handler/sign-in`);
    expect(target.searchParams.get('after_auth_return_to')).toBe('/account/settings?tab=security');
    // Until then it renders nothing of its own (never a null user): the page is going away.
    expect(screen.queryByTestId('who')).toBeNull();
    history.replaceState(null, '', '/');
  });

  it("'redirect' on the sign-in page itself does not redirect (an app with no page there would loop), and says why", async () => {
    history.replaceState(null, '', '/handler/sign-in?after_auth_return_to=%2Fteams');
    const { assign } = recordNavigations();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const client = newClient(emulator());
    render(
      <AuthProvider client={client}>
        <Who testId="who" or="redirect" />
      </AuthProvider>,
    );
    await waitFor(() =>
      expect(
        errors.mock.calls.some(([message]) => String(message).includes('rendered on the sign-in page itself')),
      ).toBe(true),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(assign).not.toHaveBeenCalled();
    history.replaceState(null, '', '/');
  });

  it("'redirect' from a page that already carries after_auth_return_to passes it on instead of nesting it, through the app's router", async () => {
    history.replaceState(null, '', `/handler/sign-up?after_auth_return_to=${encodeURIComponent('/projects/7')}`);
    const { assign } = recordNavigations();
    const routed: string[] = [];
    const client = newClient(emulator(), { navigate: (to) => void routed.push(to) });
    render(
      <AuthProvider client={client}>
        <Who testId="who" or="redirect" />
      </AuthProvider>,
    );
    await waitFor(() => expect(routed).toHaveLength(1));
    expect(routed[0]).toBe(`/handler/sign-in?after_auth_return_to=${encodeURIComponent('/projects/7')}`);
    expect(assign).not.toHaveBeenCalled();
    history.replaceState(null, '', '/');
  });

  it('useUserState tells loading from signed out, without suspending', async () => {
    const client = newClient(emulator());
    const seen: string[] = [];
    function State() {
      const state = useUserState();
      seen.push(state.status);
      return <p data-testid="state">{state.status}</p>;
    }
    render(
      <AuthProvider client={client}>
        <State />
      </AuthProvider>,
    );
    await waitFor(() => expect(text('state')).toBe('signed-out'));
    expect(seen[0]).toBe('loading');
  });
});

describe('permissions and connected accounts', () => {
  function Permissions({ teamId, ids }: { teamId: string; ids: string[] }) {
    const values = ids.map((id) => `${id}=${String(usePermission(teamId, id))}`);
    return <p data-testid="perms">{values.join(',')}</p>;
  }

  it('usePermission is true for a granted custom permission and the ones it contains, false otherwise', async () => {
    const em = emulator();
    const admin = transportFor(em, 'admin');
    const server = transportFor(em, 'server');
    const suffix = Math.random().toString(36).slice(2, 8);
    const [child, parent, other] = [`read_reports_${suffix}`, `manage_reports_${suffix}`, `billing_${suffix}`];
    await endpoints.createPermissionDefinition(admin, { id: child });
    await endpoints.createPermissionDefinition(admin, { id: parent, contained_permission_ids: [child] });
    await endpoints.createPermissionDefinition(admin, { id: other });
    const account = await createUser(em);
    const team = await endpoints.createTeam(server, { display_name: 'Permissions team', creator_user_id: account.id });
    await endpoints.grantTeamPermission(server, team.id, account.id, parent);

    const client = newClient(em);
    await client.signInWithPassword({ email: account.email, password: account.password });
    render(
      <AuthProvider client={client}>
        <Permissions teamId={team.id} ids={[parent, child, other]} />
      </AuthProvider>,
    );
    await waitFor(() => expect(text('perms')).toBe(`${parent}=true,${child}=true,${other}=false`));
  });

  function Linked({ providerId }: { providerId: string }) {
    const account = useConnectedAccount(providerId);
    return (
      <p data-testid={`linked-${providerId}`}>
        {account === null ? 'none' : `${account.providerId}:${account.accountId}:${account.email}`}
      </p>
    );
  }

  it('useConnectedAccount is null without a link', async () => {
    const em = emulator();
    const account = await createUser(em);
    const client = newClient(em);
    await client.signInWithPassword({ email: account.email, password: account.password });
    render(
      <AuthProvider client={client}>
        <Who testId="who" />
        <Linked providerId="github" />
      </AuthProvider>,
    );
    await waitFor(() => expect(text('who')).toBe(`${account.email}|`));
    expect(text('linked-github')).toBe('none');
  });

  it('useConnectedAccount and useSuspenseConnectedAccount show a linked GitHub account', async () => {
    const em = emulator();
    const linked = await createUser(em, {
      oauth_providers: [{ id: 'github', account_id: 'gh-4242', email: 'octo@example.com' }],
    });
    const client = newClient(em);
    await client.signInWithPassword({ email: linked.email, password: linked.password });
    function SuspenseLinked() {
      const account = useSuspenseConnectedAccount('github');
      return (
        <p data-testid="suspense-linked">{account === null ? 'none' : `${account.providerId}:${account.accountId}`}</p>
      );
    }
    render(
      <AuthProvider client={client}>
        <Linked providerId="github" />
        <Linked providerId="google" />
        <Suspense fallback={<p>loading</p>}>
          <SuspenseLinked />
        </Suspense>
      </AuthProvider>,
    );
    await waitFor(() => expect(text('linked-github')).toBe('github:gh-4242:octo@example.com'));
    expect(text('linked-google')).toBe('none');
    await waitFor(() => expect(text('suspense-linked')).toBe('github:gh-4242'));
  });
});
