import { render, screen, waitFor, within } from '@testing-library/react';
import { Suspense, type ReactNode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientError, isKnownError, KnownError, type BrokerClient } from '../../../client/index.js';
import * as hooks from '../../../client/react/index.js';
import {
  AuthProvider,
  useQuery,
  useSuspenseTeam,
  useSuspenseTeams,
  useSuspenseUser,
  type UseUserOptions,
} from '../../../client/react/index.js';
import { endpoints } from '../../../protocol/index.js';
import { transportFor, useEmulator } from '../../support/emulator.js';
import { RELEASE_GRACE_MILLIS } from '../../../client/queryStore.js';
import { Boundary, createUser, newClient, quietConsoleErrors, resetBrowser, sleep } from './helpers.js';

/** React keeps a boundary's fallback up at least this long before revealing its content. */
const REACT_REVEAL_THROTTLE_MILLIS = 300;

const emulator = useEmulator();
afterEach(resetBrowser);

function SuspenseUser({ or }: { or?: UseUserOptions['or'] }) {
  const user = useSuspenseUser(or === undefined ? {} : { or });
  return <p data-testid="user">{user?.primaryEmail ?? 'nobody'}</p>;
}

function SuspenseTeams() {
  const teams = useSuspenseTeams();
  return <p data-testid="teams">{teams.map((t) => t.displayName).join(',') || 'none'}</p>;
}

function SuspenseTeam({ teamId }: { teamId: string }) {
  const team = useSuspenseTeam(teamId);
  return <p data-testid="team">{team.displayName}</p>;
}

/** Records whether the fallback was ever on screen. */
function Fallback({ shown }: { shown: { count: number } }) {
  shown.count += 1;
  return <p data-testid="fallback">loading</p>;
}

function tree(client: BrokerClient, children: ReactNode, shown = { count: 0 }, onError?: (error: unknown) => void) {
  return (
    <AuthProvider client={client}>
      <Boundary {...(onError === undefined ? {} : { onError })}>
        <Suspense fallback={<Fallback shown={shown} />}>{children}</Suspense>
      </Boundary>
    </AuthProvider>
  );
}

async function signedIn() {
  const em = emulator();
  const account = await createUser(em);
  const team = await endpoints.createTeam(transportFor(em, 'server'), {
    display_name: 'Suspended team',
    creator_user_id: account.id,
  });
  const client = newClient(em);
  await client.signInWithPassword({ email: account.email, password: account.password });
  return { em, client, account, team };
}

describe('Suspense variants', () => {
  it('useSuspenseUser and useSuspenseTeams show the fallback, then the data', async () => {
    const { client, account, team } = await signedIn();
    const shown = { count: 0 };
    render(
      tree(
        client,
        <>
          <SuspenseUser />
          <SuspenseTeams />
        </>,
        shown,
      ),
    );
    // Nothing is known on the first render: the boundary shows its fallback.
    expect(screen.getByTestId('fallback').textContent).toBe('loading');
    await waitFor(() => expect(screen.getByTestId('user').textContent).toBe(account.email));
    expect(screen.getByTestId('teams').textContent).toBe(team.display_name);
    expect(screen.queryByTestId('fallback')).toBeNull();
    const fallbacks = shown.count;
    expect(fallbacks).toBeGreaterThan(0);
    // Past React's reveal throttle and the release grace: the boundary does not suspend again.
    await sleep(REACT_REVEAL_THROTTLE_MILLIS + RELEASE_GRACE_MILLIS + 100);
    expect(shown.count).toBe(fallbacks);
    expect(screen.queryByTestId('fallback')).toBeNull();
    expect(screen.getByTestId('user').style.display).toBe('');
  });

  it('a known value renders at once, without the fallback', async () => {
    const { client, account } = await signedIn();
    await client.read({ kind: 'currentUser' });
    // Another component keeps the query watched, so the snapshot is in the tab already.
    const first = render(tree(client, <SuspenseUser />));
    await waitFor(() => expect(screen.getByTestId('user').textContent).toBe(account.email));
    const shown = { count: 0 };
    const second = render(tree(client, <SuspenseUser />, shown));
    expect(within(second.container).getByTestId('user').textContent).toBe(account.email);
    expect(shown.count).toBe(0);
    first.unmount();
  });

  it('signed out, useSuspenseUser resolves to null (it does not suspend forever)', async () => {
    const client = newClient(emulator());
    render(tree(client, <SuspenseUser />));
    await waitFor(() => expect(screen.getByTestId('user').textContent).toBe('nobody'));
  });

  it("signed out, useSuspenseUser({ or: 'throw' }) reaches the boundary as ClientError NOT_SIGNED_IN", async () => {
    quietConsoleErrors();
    const client = newClient(emulator());
    const caught: unknown[] = [];
    render(tree(client, <SuspenseUser or="throw" />, undefined, (error) => caught.push(error)));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('ClientError:NOT_SIGNED_IN'));
    expect(caught[0]).toBeInstanceOf(ClientError);
  });
});

describe('errors reach the error boundary as typed errors', () => {
  it('useSuspenseTeam of a team the user is not in: KnownError TEAM_MEMBERSHIP_NOT_FOUND with its details', async () => {
    quietConsoleErrors();
    const { em, client, account } = await signedIn();
    const stranger = await createUser(em);
    const foreign = await endpoints.createTeam(transportFor(em, 'server'), {
      display_name: 'Not yours',
      creator_user_id: stranger.id,
    });
    const caught: unknown[] = [];
    render(tree(client, <SuspenseTeam teamId={foreign.id} />, undefined, (error) => caught.push(error)));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('KnownError:TEAM_MEMBERSHIP_NOT_FOUND'));
    const error = caught[0];
    expect(error).toBeInstanceOf(KnownError);
    expect(isKnownError(error, 'TEAM_MEMBERSHIP_NOT_FOUND')).toBe(true);
    if (!isKnownError(error, 'TEAM_MEMBERSHIP_NOT_FOUND')) throw error;
    expect(error.details).toEqual({ team_id: foreign.id, user_id: account.id });
    expect(error.status).toBe(404);
    expect(screen.queryByTestId('team')).toBeNull();
  });

  it('useSuspenseTeam of the user’s own team renders it', async () => {
    const { client, team } = await signedIn();
    render(tree(client, <SuspenseTeam teamId={team.id} />));
    await waitFor(() => expect(screen.getByTestId('team').textContent).toBe(team.display_name));
  });

  it('useSuspenseTeam while signed out: ClientError NOT_SIGNED_IN', async () => {
    quietConsoleErrors();
    const em = emulator();
    const account = await createUser(em);
    const team = await endpoints.createTeam(transportFor(em, 'server'), {
      display_name: 'Signed out',
      creator_user_id: account.id,
    });
    const client = newClient(em);
    const caught: unknown[] = [];
    render(tree(client, <SuspenseTeam teamId={team.id} />, undefined, (error) => caught.push(error)));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('ClientError:NOT_SIGNED_IN'));
    expect(caught[0]).toBeInstanceOf(ClientError);
  });

  it('useQuery(...).error is the typed error, and isKnownError narrows its details', async () => {
    const { em, client, account } = await signedIn();
    const stranger = await createUser(em);
    const foreign = await endpoints.createTeam(transportFor(em, 'server'), {
      display_name: 'Elsewhere',
      creator_user_id: stranger.id,
    });
    function TeamState({ teamId }: { teamId: string }) {
      const { data, error, isLoading } = useQuery({ kind: 'team', teamId });
      if (isLoading) return <p data-testid="state">loading</p>;
      // Narrowed by the code: `details.team_id` is typed, no cast.
      if (isKnownError(error, 'TEAM_MEMBERSHIP_NOT_FOUND'))
        return <p data-testid="state">{`not a member of ${error.details.team_id} (${error.details.user_id})`}</p>;
      return <p data-testid="state">{error?.code ?? data?.displayName}</p>;
    }
    render(
      <AuthProvider client={client}>
        <TeamState teamId={foreign.id} />
      </AuthProvider>,
    );
    await waitFor(() =>
      expect(screen.getByTestId('state').textContent).toBe(`not a member of ${foreign.id} (${account.id})`),
    );
    const snapshot = client.getSnapshot({ kind: 'team', teamId: foreign.id });
    expect(snapshot?.status).toBe('error');
  });
});

describe('every data hook has a Suspense variant', () => {
  /** Hooks that are not reads of service data: plumbing, the broker's own live state, what the browser can do. */
  // useUserState is the one that never suspends (it says 'loading' instead); useUser suspends itself.
  const notDataHooks = new Set([
    'useBrokerClient',
    'useQuery',
    'useQuerySnapshot',
    'useSuspenseQuery',
    'useSession',
    'useAdminSession',
    'useConnectivity',
    'useBrokerStatus',
    'useUserState',
    'usePasskeysAvailable',
    // Read from the access token the broker already holds: nothing to wait for from the service.
    'usePartialUser',
    // The writes waiting out an outage: the broker's own list.
    'usePendingChanges',
    // Confirms a CLI login on the page that shows its code: an action's state, not a read.
    'useCliLoginConfirmation',
  ]);

  it('useX comes with useSuspenseX', () => {
    const names = Object.keys(hooks).filter(
      (name) => /^use[A-Z]/.test(name) && !name.startsWith('useSuspense') && !notDataHooks.has(name),
    );
    expect(names.length).toBeGreaterThan(10);
    const missing = names.filter((name) => !(`useSuspense${name.slice(3)}` in hooks));
    expect(missing).toEqual([]);
  });
});
