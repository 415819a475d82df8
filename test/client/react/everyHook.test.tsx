import { render, screen, waitFor } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrokerClient, QuerySpec } from '../../../client/index.js';
import * as hooks from '../../../client/react/index.js';
import { AuthProvider } from '../../../client/react/index.js';
import { endpoints } from '../../../protocol/index.js';
import { transportFor, useEmulator } from '../../support/emulator.js';
import { createUser, newClient, resetBrowser } from './helpers.js';

/**
 * Every data hook, each in its own test: mounted under a signed-in user (and project owner), it
 * shows what the broker reads for the same query, and its Suspense form shows it too.
 */
const emulator = useEmulator();
afterEach(resetBrowser);

let teamId = '';
beforeAll(async () => {
  const em = emulator();
  // A linked account, a project permission and a changed preference, so that no list is empty.
  const owner = await createUser(em, {
    oauth_providers: [{ id: 'github', account_id: `every-hook-${Date.now()}` }],
    primary_email_verified: true,
  });
  const team = await endpoints.createTeam(transportFor(em, 'server'), {
    display_name: 'Every hook',
    creator_user_id: owner.id,
  });
  teamId = team.id;
  await endpoints.createProjectPermissionDefinition(transportFor(em, 'admin'), { id: 'every_hook' });
  await endpoints.grantProjectPermission(transportFor(em, 'server'), owner.id, 'every_hook');
  await endpoints.updateNotificationPreference(
    transportFor(em, 'server'),
    owner.id,
    '4f6f8873-3d04-46bd-8bef-18338b1a1b4c',
    { enabled: false },
  );
  account = owner;
  // Keys of the user and the team, and an invitation the user received (to its verified address).
  await endpoints.updateCurrentProject(transportFor(em, 'admin'), {
    config: { allow_user_api_keys: true, allow_team_api_keys: true },
  });
  const server = transportFor(em, 'server');
  await endpoints.createUserApiKey(server, { user_id: owner.id, description: 'every hook', expires_at_millis: null });
  await endpoints.createTeamApiKey(server, { team_id: team.id, description: 'every hook', expires_at_millis: null });
  // A pack of the demo project's credits, so that the payments hooks have something to show.
  await endpoints.grantProduct(server, 'user', owner.id, { product_id: 'credit_pack' });
  const inviting = await endpoints.createTeam(server, { display_name: 'Inviting every hook' });
  await endpoints.sendTeamInvitation(server, {
    team_id: inviting.id,
    email: owner.email,
    callback_url: 'http://localhost:3000/handler/team-invitation',
  });
});
let account: { id: string; email: string; password: string };

type Case = [name: string, use: () => unknown, query: () => QuerySpec, owner?: boolean];

const cases: Case[] = [
  ['useUser', () => hooks.useUser(), () => ({ kind: 'currentUser' })],
  ['useSuspenseUser', () => hooks.useSuspenseUser(), () => ({ kind: 'currentUser' })],
  ['useTeams', () => hooks.useTeams(), () => ({ kind: 'teams' })],
  ['useSuspenseTeams', () => hooks.useSuspenseTeams(), () => ({ kind: 'teams' })],
  ['useTeam', () => hooks.useTeam(teamId), () => ({ kind: 'team', teamId })],
  ['useSuspenseTeam', () => hooks.useSuspenseTeam(teamId), () => ({ kind: 'team', teamId })],
  ['useTeamMembers', () => hooks.useTeamMembers(teamId), () => ({ kind: 'teamMembers', teamId })],
  ['useSuspenseTeamMembers', () => hooks.useSuspenseTeamMembers(teamId), () => ({ kind: 'teamMembers', teamId })],
  ['useTeamProfile', () => hooks.useTeamProfile(teamId), () => ({ kind: 'teamProfile', teamId })],
  ['useSuspenseTeamProfile', () => hooks.useSuspenseTeamProfile(teamId), () => ({ kind: 'teamProfile', teamId })],
  ['useTeamInvitations', () => hooks.useTeamInvitations(teamId), () => ({ kind: 'teamInvitations', teamId })],
  [
    'useSuspenseTeamInvitations',
    () => hooks.useSuspenseTeamInvitations(teamId),
    () => ({ kind: 'teamInvitations', teamId }),
  ],
  ['usePermissions', () => hooks.usePermissions(teamId), () => ({ kind: 'permissions', teamId, recursive: true })],
  [
    'useSuspensePermissions',
    () => hooks.useSuspensePermissions(teamId),
    () => ({ kind: 'permissions', teamId, recursive: true }),
  ],
  ['useProjectPermissions', () => hooks.useProjectPermissions(), () => ({ kind: 'projectPermissions' })],
  [
    'useSuspenseProjectPermissions',
    () => hooks.useSuspenseProjectPermissions(),
    () => ({ kind: 'projectPermissions' }),
  ],
  ['useNotificationPreferences', () => hooks.useNotificationPreferences(), () => ({ kind: 'notificationPreferences' })],
  [
    'useSuspenseNotificationPreferences',
    () => hooks.useSuspenseNotificationPreferences(),
    () => ({ kind: 'notificationPreferences' }),
  ],
  ['useConnectedAccounts', () => hooks.useConnectedAccounts(), () => ({ kind: 'connectedAccounts' })],
  ['useSuspenseConnectedAccounts', () => hooks.useSuspenseConnectedAccounts(), () => ({ kind: 'connectedAccounts' })],
  ['useUserApiKeys', () => hooks.useUserApiKeys(), () => ({ kind: 'userApiKeys' })],
  ['useSuspenseUserApiKeys', () => hooks.useSuspenseUserApiKeys(), () => ({ kind: 'userApiKeys' })],
  ['useTeamApiKeys', () => hooks.useTeamApiKeys(teamId), () => ({ kind: 'teamApiKeys', teamId })],
  ['useSuspenseTeamApiKeys', () => hooks.useSuspenseTeamApiKeys(teamId), () => ({ kind: 'teamApiKeys', teamId })],
  ['useOAuthProviders', () => hooks.useOAuthProviders(), () => ({ kind: 'oauthProviders' })],
  ['useSuspenseOAuthProviders', () => hooks.useSuspenseOAuthProviders(), () => ({ kind: 'oauthProviders' })],
  ['useReceivedTeamInvitations', () => hooks.useReceivedTeamInvitations(), () => ({ kind: 'receivedTeamInvitations' })],
  [
    'useSuspenseReceivedTeamInvitations',
    () => hooks.useSuspenseReceivedTeamInvitations(),
    () => ({ kind: 'receivedTeamInvitations' }),
  ],
  [
    'useItem',
    () => hooks.useItem({ userId: account.id }, 'credits'),
    () => ({ kind: 'item', customerType: 'user', customerId: account.id, itemId: 'credits' }),
  ],
  [
    'useSuspenseItem',
    () => hooks.useSuspenseItem({ userId: account.id }, 'credits'),
    () => ({ kind: 'item', customerType: 'user', customerId: account.id, itemId: 'credits' }),
  ],
  [
    'useProducts',
    () => hooks.useProducts({ userId: account.id }),
    () => ({ kind: 'products', customerType: 'user', customerId: account.id }),
  ],
  [
    'useSuspenseProducts',
    () => hooks.useSuspenseProducts({ userId: account.id }),
    () => ({ kind: 'products', customerType: 'user', customerId: account.id }),
  ],
  [
    'useBilling',
    () => hooks.useBilling({ userId: account.id }),
    () => ({ kind: 'billing', customerType: 'user', customerId: account.id }),
  ],
  [
    'useInvoices',
    () => hooks.useInvoices({ userId: account.id }),
    () => ({ kind: 'invoices', customerType: 'user', customerId: account.id }),
  ],
  ['useContactChannels', () => hooks.useContactChannels(), () => ({ kind: 'contactChannels' })],
  ['useSuspenseContactChannels', () => hooks.useSuspenseContactChannels(), () => ({ kind: 'contactChannels' })],
  ['useSessions', () => hooks.useSessions(), () => ({ kind: 'sessions' })],
  ['useSuspenseSessions', () => hooks.useSuspenseSessions(), () => ({ kind: 'sessions' })],
  ['useProject', () => hooks.useProject(), () => ({ kind: 'project' })],
  ['useSuspenseProject', () => hooks.useSuspenseProject(), () => ({ kind: 'project' })],
  ['useOwnedProjects', () => hooks.useOwnedProjects(), () => ({ kind: 'admin.ownedProjects' }), true],
  ['useSuspenseOwnedProjects', () => hooks.useSuspenseOwnedProjects(), () => ({ kind: 'admin.ownedProjects' }), true],
  ['useAdminProject', () => hooks.useAdminProject(), () => ({ kind: 'admin.project' }), true],
  ['useSuspenseAdminProject', () => hooks.useSuspenseAdminProject(), () => ({ kind: 'admin.project' }), true],
  ['useApiKeys', () => hooks.useApiKeys(), () => ({ kind: 'admin.apiKeys' }), true],
  ['useSuspenseApiKeys', () => hooks.useSuspenseApiKeys(), () => ({ kind: 'admin.apiKeys' }), true],
  ['useEmailTemplates', () => hooks.useEmailTemplates(), () => ({ kind: 'admin.emailTemplates' }), true],
  [
    'useSuspenseEmailTemplates',
    () => hooks.useSuspenseEmailTemplates(),
    () => ({ kind: 'admin.emailTemplates' }),
    true,
  ],
  [
    'usePermissionDefinitions',
    () => hooks.usePermissionDefinitions(),
    () => ({ kind: 'admin.permissionDefinitions' }),
    true,
  ],
  [
    'useSuspensePermissionDefinitions',
    () => hooks.useSuspensePermissionDefinitions(),
    () => ({ kind: 'admin.permissionDefinitions' }),
    true,
  ],
  ['useProjectMetrics', () => hooks.useProjectMetrics(), () => ({ kind: 'admin.metrics' }), true],
  ['useSuspenseProjectMetrics', () => hooks.useSuspenseProjectMetrics(), () => ({ kind: 'admin.metrics' }), true],
  ['useSentEmails', () => hooks.useSentEmails(), () => ({ kind: 'admin.sentEmails' }), true],
  ['useSuspenseSentEmails', () => hooks.useSuspenseSentEmails(), () => ({ kind: 'admin.sentEmails' }), true],
  ['useSession', () => hooks.useSession(), () => ({ kind: 'session' })],
  ['useAdminSession', () => hooks.useAdminSession(), () => ({ kind: 'adminSession' }), true],
];

/** Hooks whose list the set-up fills, so that an empty answer cannot pass for the right one. */
const FILLED = new Set([
  'useProjectPermissions',
  'useSuspenseProjectPermissions',
  'useNotificationPreferences',
  'useSuspenseNotificationPreferences',
  'useConnectedAccounts',
  'useSuspenseConnectedAccounts',
  'useUserApiKeys',
  'useSuspenseUserApiKeys',
  'useTeamApiKeys',
  'useSuspenseTeamApiKeys',
  'useOAuthProviders',
  'useSuspenseOAuthProviders',
  'useReceivedTeamInvitations',
  'useSuspenseReceivedTeamInvitations',
]);

/** What the hook showed, as JSON (volatile figures of live values left out). */
function Show({ use }: { use: () => unknown }) {
  return <pre data-testid="value">{JSON.stringify(use())}</pre>;
}

async function signedIn(owner: boolean): Promise<BrokerClient> {
  const em = emulator();
  const client = newClient(em, { internalPublishableClientKey: em.projects.internal.publishableClientKey });
  await client.signInWithPassword({ email: account.email, password: account.password });
  if (owner) await client.adminSignInWithPassword({ email: 'admin@authbroker.dev', password: 'admin-password' });
  return client;
}

describe('every data hook shows what the broker has for its query', () => {
  it.each(cases)('%s', async (name, use, query, owner) => {
    const client = await signedIn(owner === true);
    const expected = JSON.stringify(await client.read(query()));
    expect(expected).not.toBe('null');
    if (FILLED.has(name)) expect(expected).not.toBe('[]');
    render(
      <AuthProvider client={client}>
        <Suspense fallback={<p>loading</p>}>
          <Show use={use} />
        </Suspense>
      </AuthProvider>,
    );
    await waitFor(() => expect(screen.getByTestId('value').textContent).toBe(expected));
  });

  it('useSuspensePermission and usePermission answer for one permission', async () => {
    const client = await signedIn(false);
    render(
      <AuthProvider client={client}>
        <Suspense fallback={<p>loading</p>}>
          <Show
            use={() => [
              hooks.usePermission(teamId, '$update_team'),
              hooks.useSuspensePermission(teamId, '$read_members'),
              hooks.usePermission(teamId, 'nope'),
            ]}
          />
        </Suspense>
      </AuthProvider>,
    );
    await waitFor(() => expect(screen.getByTestId('value').textContent).toBe('[true,true,false]'));
  });

  it('useSuspenseProjectPermission and useProjectPermission answer for one project permission', async () => {
    const client = await signedIn(false);
    render(
      <AuthProvider client={client}>
        <Suspense fallback={<p>loading</p>}>
          <Show
            use={() => [
              hooks.useProjectPermission('every_hook'),
              hooks.useSuspenseProjectPermission('every_hook'),
              hooks.useProjectPermission('nope'),
            ]}
          />
        </Suspense>
      </AuthProvider>,
    );
    await waitFor(() => expect(screen.getByTestId('value').textContent).toBe('[true,true,false]'));
  });
});
