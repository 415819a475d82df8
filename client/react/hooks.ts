import { useMemo, useSyncExternalStore } from 'react';
import type { BrokerStatus, ConnectivitySnapshot, SessionInfo } from '../../contract/state.js';
import type { ConnectedAccountModel, NotificationPreferenceModel, ProjectPermissionModel, TeamPermissionModel } from '../../protocol/models.js';
import { passkeysAvailable } from '../passkeySupport.js';
import { useQuery, useSuspenseQuery } from './query.js';

const EMPTY: never[] = [];

export const useTeams = () => useQuery({ kind: 'teams' }).data ?? EMPTY;
export const useSuspenseTeams = () => useSuspenseQuery({ kind: 'teams' });
export const useTeam = (teamId: string | null) => useQuery(teamId === null ? null : { kind: 'team', teamId }).data ?? null;
export const useSuspenseTeam = (teamId: string) => useSuspenseQuery({ kind: 'team', teamId });
export const useTeamMembers = (teamId: string | null) => useQuery(teamId === null ? null : { kind: 'teamMembers', teamId }).data ?? EMPTY;
export const useSuspenseTeamMembers = (teamId: string) => useSuspenseQuery({ kind: 'teamMembers', teamId });
/** The signed-in user's own profile in a team (no `$read_members` needed). */
export const useTeamProfile = (teamId: string | null) => useQuery(teamId === null ? null : { kind: 'teamProfile', teamId }).data ?? null;
export const useSuspenseTeamProfile = (teamId: string) => useSuspenseQuery({ kind: 'teamProfile', teamId });
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
/** The user's project permissions (outside any team), including those reached through contained permissions; empty when signed out. */
export const useProjectPermissions = (): ProjectPermissionModel[] => useQuery({ kind: 'projectPermissions' }).data ?? EMPTY;
/** `useProjectPermissions`, suspending until the list is known. */
export const useSuspenseProjectPermissions = (): ProjectPermissionModel[] => useSuspenseQuery({ kind: 'projectPermissions' });
/** Whether the user holds a project permission, directly or through one that contains it (false while loading). */
export const useProjectPermission = (permissionId: string): boolean => useProjectPermissions().some((p) => p.id === permissionId);
/** `useProjectPermission`, suspending until the user's permissions are known. */
export const useSuspenseProjectPermission = (permissionId: string): boolean => useSuspenseProjectPermissions().some((p) => p.id === permissionId);
/**
 * Each notification category (`Transactional`, `Marketing`) and whether the user gets its e-mails;
 * change one with `client.updateNotificationPreference(categoryId, { enabled })`. Empty when signed out.
 */
export const useNotificationPreferences = (): NotificationPreferenceModel[] => useQuery({ kind: 'notificationPreferences' }).data ?? EMPTY;
/** `useNotificationPreferences`, suspending until the list is known. */
export const useSuspenseNotificationPreferences = (): NotificationPreferenceModel[] => useSuspenseQuery({ kind: 'notificationPreferences' });
/**
 * The user's linked provider accounts the app may get provider tokens for (`{ provider, providerAccountId }`),
 * oldest first; empty when signed out. For one provider's token, `useConnectedAccount(providerId)`.
 */
export const useConnectedAccounts = (): ConnectedAccountModel[] => useQuery({ kind: 'connectedAccounts' }).data ?? EMPTY;
/** `useConnectedAccounts`, suspending until the list is known. */
export const useSuspenseConnectedAccounts = (): ConnectedAccountModel[] => useSuspenseQuery({ kind: 'connectedAccounts' });
export const useContactChannels = () => useQuery({ kind: 'contactChannels' }).data ?? EMPTY;
export const useSuspenseContactChannels = () => useSuspenseQuery({ kind: 'contactChannels' });
export const useSessions = () => useQuery({ kind: 'sessions' }).data ?? EMPTY;
export const useSuspenseSessions = () => useSuspenseQuery({ kind: 'sessions' });
export const useProject = () => useQuery({ kind: 'project' }).data ?? null;
export const useSuspenseProject = () => useSuspenseQuery({ kind: 'project' });

const unknownSession: SessionInfo = { status: 'loading' };
/** Whether someone is signed in, and why the last session ended. */
export const useSession = (): SessionInfo => useQuery({ kind: 'session' }).data ?? unknownSession;
/** Online / degraded / offline, with the last error and the diagnostics. */
export const useConnectivity = (): ConnectivitySnapshot | null => useQuery({ kind: 'connectivity' }).data ?? null;
const neverChanges = () => () => undefined;
/**
 * Whether this browser can use passkeys (WebAuthn). Where it cannot (WebKitGTK, some WebViews),
 * show no passkey button: say passkeys are not available here, and offer the other ways to sign
 * in. False during server rendering and hydration, then the browser's answer.
 */
export const usePasskeysAvailable = (): boolean => useSyncExternalStore(neverChanges, passkeysAvailable, () => false);
/** Host mode, tabs connected, refreshes, cache entries and more. */
export const useBrokerStatus = (): BrokerStatus | null => useQuery({ kind: 'status' }).data ?? null;

// Project administration (a project owner signed in through `adminSignInWithPassword`).
export const useAdminSession = (): SessionInfo => useQuery({ kind: 'adminSession' }).data ?? unknownSession;
export const useOwnedProjects = () => useQuery({ kind: 'admin.ownedProjects' }).data ?? EMPTY;
export const useAdminProject = (projectId?: string) => useQuery({ kind: 'admin.project', projectId }).data ?? null;
export const useApiKeys = (projectId?: string) => useQuery({ kind: 'admin.apiKeys', projectId }).data ?? EMPTY;
/** One API key of the project (or of `projectId`). */
export const useApiKey = (apiKeyId: string | null, projectId?: string) => useQuery(apiKeyId === null ? null : { kind: 'admin.apiKey', apiKeyId, projectId }).data ?? null;
export const useSuspenseApiKey = (apiKeyId: string, projectId?: string) => useSuspenseQuery({ kind: 'admin.apiKey', apiKeyId, projectId });
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
