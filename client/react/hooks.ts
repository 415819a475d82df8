import { useEffect, useMemo } from 'react';
import { ClientError } from '../../protocol/errors/errors.js';
import type { ConnectivitySnapshot } from '../../worker/connectivity.js';
import type { BrokerStatus, SessionInfo } from '../../worker/api/types.js';
import type { TeamPermissionModel, User } from '../../worker/models.js';
import { useBrokerClient } from './provider.js';
import { useQuery, useSuspenseQuery } from './query.js';

const EMPTY: never[] = [];

export interface UseUserOptions {
  /** When nobody is signed in: go to the sign-in page, throw, or return null (the default). */
  or?: 'redirect' | 'throw' | 'return-null';
}

function useSignedOutReaction(user: User | null | undefined, or: UseUserOptions['or']): void {
  const client = useBrokerClient();
  const signedOut = user === null;
  useEffect(() => {
    if (signedOut && or === 'redirect') {
      const target = new URL(client.urls.signIn);
      // On the sign-in page itself a redirect would reload it forever (an app whose router serves
      // the same component at every path): that page must show a sign-in form instead.
      if (target.origin === location.origin && target.pathname === location.pathname) return;
      // A page that was itself reached on the way back passes that way back on, never nested.
      const returnTo = new URLSearchParams(location.search).get('after_auth_return_to') ?? location.pathname + location.search;
      target.searchParams.set('after_auth_return_to', returnTo);
      location.assign(target.toString());
    }
  }, [signedOut, or, client]);
  if (signedOut && or === 'throw') throw new ClientError('NOT_SIGNED_IN', 'This page needs a signed-in user.');
}

/** The signed-in user (null when signed out or not known yet). */
export function useUser(options: UseUserOptions = {}): User | null {
  const user = useQuery({ kind: 'currentUser' }).data;
  useSignedOutReaction(user, options.or);
  return user ?? null;
}

/** The signed-in user, suspending until it is known. */
export function useSuspenseUser(options: UseUserOptions = {}): User | null {
  const user = useSuspenseQuery({ kind: 'currentUser' });
  useSignedOutReaction(user, options.or);
  return user;
}

export const useTeams = () => useQuery({ kind: 'teams' }).data ?? EMPTY;
export const useSuspenseTeams = () => useSuspenseQuery({ kind: 'teams' });
export const useTeam = (teamId: string | null) => useQuery(teamId === null ? null : { kind: 'team', teamId }).data ?? null;
export const useSuspenseTeam = (teamId: string) => useSuspenseQuery({ kind: 'team', teamId });
export const useTeamMembers = (teamId: string | null) => useQuery(teamId === null ? null : { kind: 'teamMembers', teamId }).data ?? EMPTY;
export const useSuspenseTeamMembers = (teamId: string) => useSuspenseQuery({ kind: 'teamMembers', teamId });
export const useTeamInvitations = (teamId: string | null) => useQuery(teamId === null ? null : { kind: 'teamInvitations', teamId }).data ?? EMPTY;
export const useSuspenseTeamInvitations = (teamId: string) => useSuspenseQuery({ kind: 'teamInvitations', teamId });
/** The user's permissions in a team, including those reached through contained permissions. */
export const usePermissions = (teamId: string | null): TeamPermissionModel[] =>
  useQuery(teamId === null ? null : { kind: 'permissions', teamId, recursive: true }).data ?? EMPTY;
export const useSuspensePermissions = (teamId: string) => useSuspenseQuery({ kind: 'permissions', teamId, recursive: true });
export function usePermission(teamId: string | null, permissionId: string): boolean {
  const permissions = usePermissions(teamId);
  return useMemo(() => permissions.some((p) => p.id === permissionId), [permissions, permissionId]);
}
export function useSuspensePermission(teamId: string, permissionId: string): boolean {
  return useSuspensePermissions(teamId).some((p) => p.id === permissionId);
}
export const useContactChannels = () => useQuery({ kind: 'contactChannels' }).data ?? EMPTY;
export const useSuspenseContactChannels = () => useSuspenseQuery({ kind: 'contactChannels' });
export const useSessions = () => useQuery({ kind: 'sessions' }).data ?? EMPTY;
export const useSuspenseSessions = () => useSuspenseQuery({ kind: 'sessions' });
export const useProject = () => useQuery({ kind: 'project' }).data ?? null;
export const useSuspenseProject = () => useSuspenseQuery({ kind: 'project' });

export interface ConnectedAccount {
  providerId: string;
  accountId: string;
  email: string | null;
  /** A provider access token covering `scope` (space-separated provider scopes). */
  getAccessToken(scope?: string): Promise<string>;
}

/** The user's linked account at a provider, or null. */
export function useConnectedAccount(providerId: string): ConnectedAccount | null {
  return useAccountOf(useUser(), providerId);
}

/** The user's linked account at a provider, or null, suspending until the user is known. */
export function useSuspenseConnectedAccount(providerId: string): ConnectedAccount | null {
  return useAccountOf(useSuspenseUser(), providerId);
}

function useAccountOf(user: User | null, providerId: string): ConnectedAccount | null {
  const client = useBrokerClient();
  const link = user?.oauthProviders.find((p) => p.id === providerId) ?? null;
  return useMemo(
    () =>
      link === null
        ? null
        : {
            providerId: link.id,
            accountId: link.accountId,
            email: link.email,
            getAccessToken: async (scope?: string) => (await client.getConnectedAccountAccessToken(providerId, scope === undefined ? {} : { scope })).accessToken,
          },
    [client, link, providerId],
  );
}

const unknownSession: SessionInfo = { status: 'loading' };
/** Whether someone is signed in, and why the last session ended. */
export const useSession = (): SessionInfo => useQuery({ kind: 'session' }).data ?? unknownSession;
/** Online / degraded / offline, with the last error and the diagnostics. */
export const useConnectivity = (): ConnectivitySnapshot | null => useQuery({ kind: 'connectivity' }).data ?? null;
/** Host mode, tabs connected, refreshes, cache entries and more. */
export const useBrokerStatus = (): BrokerStatus | null => useQuery({ kind: 'status' }).data ?? null;

// Project administration (a project owner signed in through `adminSignInWithPassword`).
export const useAdminSession = (): SessionInfo => useQuery({ kind: 'adminSession' }).data ?? unknownSession;
export const useOwnedProjects = () => useQuery({ kind: 'admin.ownedProjects' }).data ?? EMPTY;
export const useAdminProject = (projectId?: string) => useQuery({ kind: 'admin.project', projectId }).data ?? null;
export const useApiKeys = (projectId?: string) => useQuery({ kind: 'admin.apiKeys', projectId }).data ?? EMPTY;
export const useEmailTemplates = (projectId?: string) => useQuery({ kind: 'admin.emailTemplates', projectId }).data ?? EMPTY;
export const usePermissionDefinitions = (projectId?: string) => useQuery({ kind: 'admin.permissionDefinitions', projectId }).data ?? EMPTY;
export const useProjectMetrics = (projectId?: string) => useQuery({ kind: 'admin.metrics', projectId }).data ?? null;
export const useSentEmails = (projectId?: string) => useQuery({ kind: 'admin.sentEmails', projectId }).data ?? EMPTY;
export const useSuspenseOwnedProjects = () => useSuspenseQuery({ kind: 'admin.ownedProjects' });
export const useSuspenseAdminProject = (projectId?: string) => useSuspenseQuery({ kind: 'admin.project', projectId });
export const useSuspenseApiKeys = (projectId?: string) => useSuspenseQuery({ kind: 'admin.apiKeys', projectId });
export const useSuspenseEmailTemplates = (projectId?: string) => useSuspenseQuery({ kind: 'admin.emailTemplates', projectId });
export const useSuspensePermissionDefinitions = (projectId?: string) => useSuspenseQuery({ kind: 'admin.permissionDefinitions', projectId });
export const useSuspenseProjectMetrics = (projectId?: string) => useSuspenseQuery({ kind: 'admin.metrics', projectId });
export const useSuspenseSentEmails = (projectId?: string) => useSuspenseQuery({ kind: 'admin.sentEmails', projectId });
