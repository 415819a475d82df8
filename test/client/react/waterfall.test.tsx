import { render, screen, waitFor } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BrokerClient } from '../../../client/index.js';
import {
  AuthProvider,
  useContactChannels,
  usePermissions,
  useProject,
  useSuspenseContactChannels,
  useSuspensePermissions,
  useSuspenseQueries,
  useSuspenseProject,
  useSuspenseTeams,
  useSuspenseUser,
  useTeams,
  useUserState,
} from '../../../client/react/index.js';
import type { RunningEmulator } from '../../../emulator/index.js';
import { endpoints } from '../../../protocol/index.js';
import { devRequest, transportFor, useEmulator } from '../../support/emulator.js';
import { createUser, newClient, resetBrowser } from './helpers.js';

const emulator = useEmulator();
afterEach(async () => {
  await devRequest(emulator(), 'DELETE', '/emulator/faults');
  await resetBrowser();
});

/** Every read takes this long at the emulator, so reads made one after another would show. */
const LATENCY_MILLIS = 150;

interface Exchange {
  method: string;
  path: string;
  startedAt: number;
  answeredAt: number | null;
}

/** Wraps the page's fetch (the in-page broker takes it when it starts) to time every API call. */
function recordApiCalls(): Exchange[] {
  const calls: Exchange[] = [];
  const original = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const exchange: Exchange = {
      method: request.method,
      path: url.pathname.replace(/^\/api\/v1/, '') + url.search,
      startedAt: performance.now(),
      answeredAt: null,
    };
    if (url.pathname.startsWith('/api/v1/')) calls.push(exchange);
    const response = await original(input, init);
    exchange.answeredAt = performance.now();
    return response;
  });
  return calls;
}

async function slowReads(em: RunningEmulator) {
  await devRequest(em, 'POST', '/emulator/faults', {
    path: '/api/v1/*',
    method: 'GET',
    probability: 1,
    effect: { type: 'latency', ms: LATENCY_MILLIS },
  });
}

async function signedInWithTeam() {
  const em = emulator();
  const account = await createUser(em);
  const team = await endpoints.createTeam(transportFor(em, 'server'), {
    display_name: 'Waterfall team',
    creator_user_id: account.id,
  });
  const calls = recordApiCalls();
  const client = newClient(em);
  await client.signInWithPassword({ email: account.email, password: account.password });
  calls.length = 0;
  await slowReads(em);
  return { em, client, account, team, calls };
}

const EXPECTED_READS = (teamId: string) =>
  [
    '/contact-channels?user_id=me',
    '/projects/current',
    `/team-permissions?team_id=${teamId}&user_id=me&recursive=true`,
    '/teams?user_id=me',
    '/users/me',
  ].sort();

/** All reads went out before the first answer came back: none waited for another. */
function expectConcurrent(calls: Exchange[], teamId: string) {
  const reads = calls.filter((c) => c.method === 'GET');
  expect(reads.map((c) => c.path).sort()).toEqual(EXPECTED_READS(teamId));
  const lastStart = Math.max(...reads.map((c) => c.startedAt));
  const firstAnswer = Math.min(...reads.map((c) => c.answeredAt ?? Number.POSITIVE_INFINITY));
  // Ordering, not a duration: with every answer delayed, a waterfall would start a read only after
  // an answer came back, whatever the machine's load.
  expect(lastStart).toBeLessThan(firstAnswer);
}

/** useUserState, not useUser: a hook that suspends first holds back the hooks after it (see the README). */
function Everything({ teamId }: { teamId: string }) {
  const { user } = useUserState();
  const teams = useTeams();
  const channels = useContactChannels();
  const project = useProject();
  const permissions = usePermissions(teamId);
  const ready = user !== null && teams.length > 0 && channels.length > 0 && project !== null && permissions.length > 0;
  return (
    <p data-testid="state">
      {ready ? `${user.primaryEmail}|${teams[0]!.displayName}|${project.displayName}` : 'loading'}
    </p>
  );
}

describe('hooks mounting together read in parallel', () => {
  it('user, teams, contact channels, project and permissions in one component', async () => {
    const { client, account, team, calls } = await signedInWithTeam();
    render(
      <AuthProvider client={client}>
        <Everything teamId={team.id} />
      </AuthProvider>,
    );
    await waitFor(
      () =>
        expect(screen.getByTestId('state').textContent).toBe(`${account.email}|${team.display_name}|Authbroker Demo`),
      { timeout: 3000 },
    );
    expectConcurrent(calls, team.id);
  });

  it('the same hooks spread over sibling components, with a query watched twice read once', async () => {
    const { client, account, team, calls } = await signedInWithTeam();
    const One = ({ read }: { read: () => unknown }) => {
      read();
      return null;
    };
    render(
      <AuthProvider client={client}>
        <One read={useUserState} />
        <One read={useTeams} />
        <One read={useContactChannels} />
        <One read={useProject} />
        <One read={() => usePermissions(team.id)} />
        <Everything teamId={team.id} />
      </AuthProvider>,
    );
    await waitFor(
      () =>
        expect(screen.getByTestId('state').textContent).toBe(`${account.email}|${team.display_name}|Authbroker Demo`),
      { timeout: 3000 },
    );
    expectConcurrent(calls, team.id);
  });
});

describe('Suspense', () => {
  function Show({ name, read }: { name: string; read: () => unknown }) {
    const value = read();
    return <p data-testid={name}>{Array.isArray(value) ? value.length : value === null ? 'null' : 'ok'}</p>;
  }

  function suspended(client: BrokerClient, teamId: string) {
    return (
      <AuthProvider client={client}>
        <Suspense fallback={<p>loading</p>}>
          <Show name="user" read={useSuspenseUser} />
          <Show name="teams" read={useSuspenseTeams} />
          <Show name="channels" read={useSuspenseContactChannels} />
          <Show name="project" read={useSuspenseProject} />
          <Show name="permissions" read={() => useSuspensePermissions(teamId)} />
        </Suspense>
      </AuthProvider>
    );
  }

  it('sibling components under one boundary do not wait for each other', async () => {
    const { client, team, calls } = await signedInWithTeam();
    render(suspended(client, team.id));
    await waitFor(() => expect(screen.getByTestId('permissions').textContent).not.toBe(''), { timeout: 3000 });
    expect(screen.getByTestId('user').textContent).toBe('ok');
    expect(screen.getByTestId('teams').textContent).toBe('1');
    expectConcurrent(calls, team.id);
  });

  it('several queries in one component: useSuspenseQueries asks for all of them at once', async () => {
    const { client, account, team, calls } = await signedInWithTeam();
    function All() {
      const [user, teams, channels, project, permissions] = useSuspenseQueries([
        { kind: 'currentUser' },
        { kind: 'teams' },
        { kind: 'contactChannels' },
        { kind: 'project' },
        { kind: 'permissions', teamId: team.id, recursive: true },
      ]);
      return (
        <p data-testid="all">{`${user?.primaryEmail}|${teams.length}|${channels.length}|${project.displayName}|${permissions.length > 0}`}</p>
      );
    }
    render(
      <AuthProvider client={client}>
        <Suspense fallback={<p>loading</p>}>
          <All />
        </Suspense>
      </AuthProvider>,
    );
    await waitFor(
      () => expect(screen.getByTestId('all').textContent).toBe(`${account.email}|1|1|Authbroker Demo|true`),
      { timeout: 3000 },
    );
    expectConcurrent(calls, team.id);
  });
});
