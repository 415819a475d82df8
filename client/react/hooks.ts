import { useMemo, useSyncExternalStore } from 'react';
import type { BrokerStatus, ConnectivitySnapshot, SessionInfo } from '../../contract/state.js';
import type { PendingChange } from '../../contract/appRequests.js';
import type { PartialUser } from '../../protocol/partialUser.js';
import type {
  ConnectedAccountModel,
  NotificationPreferenceModel,
  OAuthProviderModel,
  ProjectPermissionModel,
  TeamApiKeyModel,
  TeamInvitationModel,
  TeamPermissionModel,
  UserApiKeyModel,
} from '../../protocol/models.js';
import type {
  BillableCustomer,
  BillingModel,
  Customer,
  CustomerPageModel,
  CustomerProductModel,
  InvoiceModel,
  ItemModel,
} from '../../protocol/paymentModels.js';
import { passkeysAvailable } from '../passkeys/passkeySupport.js';
import { noop, useQuery, useSuspenseQuery } from './query.js';

const EMPTY: never[] = [];

/** The teams the signed-in user belongs to ([] while loading or signed out). */
export const useTeams = () => useQuery({ kind: 'teams' }).data ?? EMPTY;
/** {@link useTeams}, suspending until the teams are known. */
export const useSuspenseTeams = () => useSuspenseQuery({ kind: 'teams' });
/** One of the user's teams (null while loading, or for a null id). */
export const useTeam = (teamId: string | null) =>
  useQuery(teamId === null ? null : { kind: 'team', teamId }).data ?? null;
/** {@link useTeam}, suspending until the team is known. */
export const useSuspenseTeam = (teamId: string) => useSuspenseQuery({ kind: 'team', teamId });
/** The members of a team, with their team profiles (needs `$read_members` in it). */
export const useTeamMembers = (teamId: string | null) =>
  useQuery(teamId === null ? null : { kind: 'teamMembers', teamId }).data ?? EMPTY;
/** {@link useTeamMembers}, suspending until the members are known. */
export const useSuspenseTeamMembers = (teamId: string) => useSuspenseQuery({ kind: 'teamMembers', teamId });
/** The signed-in user's own profile in a team (no `$read_members` needed). */
export const useTeamProfile = (teamId: string | null) =>
  useQuery(teamId === null ? null : { kind: 'teamProfile', teamId }).data ?? null;
/** {@link useTeamProfile}, suspending until the profile is known. */
export const useSuspenseTeamProfile = (teamId: string) => useSuspenseQuery({ kind: 'teamProfile', teamId });
/** The invitations of a team not yet accepted (needs `$read_members` in it). */
export const useTeamInvitations = (teamId: string | null) =>
  useQuery(teamId === null ? null : { kind: 'teamInvitations', teamId }).data ?? EMPTY;
/** {@link useTeamInvitations}, suspending until they are known. */
export const useSuspenseTeamInvitations = (teamId: string) => useSuspenseQuery({ kind: 'teamInvitations', teamId });
/** The user's permissions in a team, including those reached through contained permissions. */
export const usePermissions = (teamId: string | null): TeamPermissionModel[] =>
  useQuery(teamId === null ? null : { kind: 'permissions', teamId, recursive: true }).data ?? EMPTY;
/** {@link usePermissions}, suspending until the permissions are known. */
export const useSuspensePermissions = (teamId: string) =>
  useSuspenseQuery({ kind: 'permissions', teamId, recursive: true });
/**
 * Whether the signed-in user holds a permission in a team (directly or through a containing one); false while loading.
 */
export function usePermission(teamId: string | null, permissionId: string): boolean {
  const permissions = usePermissions(teamId);
  return useMemo(() => permissions.some((p) => p.id === permissionId), [permissions, permissionId]);
}
/** {@link usePermission}, suspending until the permissions are known. */
export function useSuspensePermission(teamId: string, permissionId: string): boolean {
  return useSuspensePermissions(teamId).some((p) => p.id === permissionId);
}
/**
 * The user's project permissions (outside any team), including those reached through contained permissions; empty when
 * signed out.
 */
export const useProjectPermissions = (): ProjectPermissionModel[] =>
  useQuery({ kind: 'projectPermissions' }).data ?? EMPTY;
/** `useProjectPermissions`, suspending until the list is known. */
export const useSuspenseProjectPermissions = (): ProjectPermissionModel[] =>
  useSuspenseQuery({ kind: 'projectPermissions' });
/** Whether the user holds a project permission, directly or through one that contains it (false while loading). */
export const useProjectPermission = (permissionId: string): boolean =>
  useProjectPermissions().some((p) => p.id === permissionId);
/** `useProjectPermission`, suspending until the user's permissions are known. */
export const useSuspenseProjectPermission = (permissionId: string): boolean =>
  useSuspenseProjectPermissions().some((p) => p.id === permissionId);
/**
 * Each notification category (`Transactional`, `Marketing`) and whether the user gets its e-mails;
 * change one with `client.updateNotificationPreference(categoryId, { enabled })`. Empty when signed out.
 */
export const useNotificationPreferences = (): NotificationPreferenceModel[] =>
  useQuery({ kind: 'notificationPreferences' }).data ?? EMPTY;
/** `useNotificationPreferences`, suspending until the list is known. */
export const useSuspenseNotificationPreferences = (): NotificationPreferenceModel[] =>
  useSuspenseQuery({ kind: 'notificationPreferences' });
/**
 * The user's linked provider accounts the app may get provider tokens for (`{ provider, providerAccountId }`),
 * oldest first; empty when signed out. For one provider's token, `useConnectedAccount(providerId)`.
 */
export const useConnectedAccounts = (): ConnectedAccountModel[] =>
  useQuery({ kind: 'connectedAccounts' }).data ?? EMPTY;
/** `useConnectedAccounts`, suspending until the list is known. */
export const useSuspenseConnectedAccounts = (): ConnectedAccountModel[] =>
  useSuspenseQuery({ kind: 'connectedAccounts' });
/**
 * The user as the session's access token names it (id, name, e-mail, anonymous or restricted…), read by
 * the broker without a request: undefined until known, null when signed out, and for an anonymous user
 * unless `includeAnonymous`. The claims are as of the token's issue; `useUser()` reads the user itself.
 */
export function usePartialUser(options: { includeAnonymous?: boolean } = {}): PartialUser | null | undefined {
  const user = useQuery({ kind: 'partialUser' }).data;
  return user?.isAnonymous && !options.includeAnonymous ? null : user;
}
// The user's own API keys, its teams' keys, its OAuth providers and the invitations it received.
/**
 * The signed-in user's API keys, newest first, revoked and expired ones included: `value.lastFour` only, never the
 * key (`client.createUserApiKey` shows it once). [] while loading or signed out; an error when the project does not
 * allow user API keys (`useProject()?.config.allowUserApiKeys`).
 */
export const useUserApiKeys = (): UserApiKeyModel[] => useQuery({ kind: 'userApiKeys' }).data ?? EMPTY;
/** {@link useUserApiKeys}, suspending until they are known. */
export const useSuspenseUserApiKeys = (): UserApiKeyModel[] => useSuspenseQuery({ kind: 'userApiKeys' });
/** A team's API keys, newest first (needs `$manage_api_keys` in it); [] while loading, or for a null id. */
export const useTeamApiKeys = (teamId: string | null): TeamApiKeyModel[] =>
  useQuery(teamId === null ? null : { kind: 'teamApiKeys', teamId }).data ?? EMPTY;
/** {@link useTeamApiKeys}, suspending until they are known. */
export const useSuspenseTeamApiKeys = (teamId: string): TeamApiKeyModel[] =>
  useSuspenseQuery({ kind: 'teamApiKeys', teamId });
/**
 * The user's OAuth providers: each linked provider account (`type`, `email`), whether it signs them in
 * (`allowSignIn`) and gives the app provider tokens (`allowConnectedAccounts`), oldest first; [] signed out.
 */
export const useOAuthProviders = (): OAuthProviderModel[] => useQuery({ kind: 'oauthProviders' }).data ?? EMPTY;
/** {@link useOAuthProviders}, suspending until they are known. */
export const useSuspenseOAuthProviders = (): OAuthProviderModel[] => useSuspenseQuery({ kind: 'oauthProviders' });
/**
 * Pending invitations sent to the user's verified e-mail addresses (`teamDisplayName`, `recipientEmail`,
 * `expiresAtMillis`), to accept with `client.acceptTeamInvitationById(id)`; [] signed out.
 */
export const useReceivedTeamInvitations = (): TeamInvitationModel[] =>
  useQuery({ kind: 'receivedTeamInvitations' }).data ?? EMPTY;
/** {@link useReceivedTeamInvitations}, suspending until they are known. */
export const useSuspenseReceivedTeamInvitations = (): TeamInvitationModel[] =>
  useSuspenseQuery({ kind: 'receivedTeamInvitations' });
// Payments: a customer is `{ userId }`, `{ teamId }` or `{ customCustomerId }` (a client reaches its own user and the
// teams where it holds `team_admin`). Buying is `client.createCheckoutUrl`, then `client.refreshPayments` on return.
/** A customer as the payments queries name it. */
const customerOf = <C extends Customer>(customer: C) =>
  ('userId' in customer
    ? { customerType: 'user', customerId: customer.userId }
    : 'teamId' in customer
      ? { customerType: 'team', customerId: customer.teamId }
      : { customerType: 'custom', customerId: customer.customCustomerId }) as {
    customerType: C extends BillableCustomer ? 'user' | 'team' : 'user' | 'team' | 'custom';
    customerId: string;
  };
/** A page of a list: `cursor` from the last page's `nextCursor`, `limit` 1–100 (default 10). */
export interface PageOptions {
  cursor?: string;
  limit?: number;
}
const NO_PAGE: CustomerPageModel<never> = { items: [], nextCursor: null };
/**
 * A customer's quantity of an item (`quantity`, which may be negative, and `nonNegativeQuantity`), the same in every
 * tab; null while loading, signed out, or for a null customer.
 */
export const useItem = (customer: Customer | null, itemId: string): ItemModel | null =>
  useQuery(customer === null ? null : { kind: 'item', ...customerOf(customer), itemId }).data ?? null;
/** {@link useItem}, suspending until the item is known. */
export const useSuspenseItem = (customer: Customer, itemId: string) =>
  useSuspenseQuery({ kind: 'item', ...customerOf(customer), itemId });
/**
 * A page of the products a customer owns: each with its prices and included items, its active `subscription`
 * (`currentPeriodEndMillis`, `cancelAtPeriodEnd`) and the plans it may switch to; empty while loading.
 */
export const useProducts = (
  customer: Customer | null,
  options: PageOptions = {},
): CustomerPageModel<CustomerProductModel> =>
  useQuery(customer === null ? null : { kind: 'products', ...customerOf(customer), ...options }).data ?? NO_PAGE;
/** {@link useProducts}, suspending until they are known. */
export const useSuspenseProducts = (customer: Customer, options: PageOptions = {}) =>
  useSuspenseQuery({ kind: 'products', ...customerOf(customer), ...options });
/** Whether a user or team has a Stripe customer, and its card on file; null while loading. */
export const useBilling = (customer: BillableCustomer | null): BillingModel | null =>
  useQuery(customer === null ? null : { kind: 'billing', ...customerOf(customer) }).data ?? null;
/** {@link useBilling}, suspending until it is known. */
export const useSuspenseBilling = (customer: BillableCustomer) =>
  useSuspenseQuery({ kind: 'billing', ...customerOf(customer) });
/** A page of a user's or team's subscription invoices, newest first; empty while loading. */
export const useInvoices = (
  customer: BillableCustomer | null,
  options: PageOptions = {},
): CustomerPageModel<InvoiceModel> =>
  useQuery(customer === null ? null : { kind: 'invoices', ...customerOf(customer), ...options }).data ?? NO_PAGE;
/** {@link useInvoices}, suspending until they are known. */
export const useSuspenseInvoices = (customer: BillableCustomer, options: PageOptions = {}) =>
  useSuspenseQuery({ kind: 'invoices', ...customerOf(customer), ...options });
/** The signed-in user's e-mail addresses. */
export const useContactChannels = () => useQuery({ kind: 'contactChannels' }).data ?? EMPTY;
/** {@link useContactChannels}, suspending until they are known. */
export const useSuspenseContactChannels = () => useSuspenseQuery({ kind: 'contactChannels' });
/** The signed-in user's open sessions (this one is marked `isCurrentSession`). */
export const useSessions = () => useQuery({ kind: 'sessions' }).data ?? EMPTY;
/** {@link useSessions}, suspending until they are known. */
export const useSuspenseSessions = () => useSuspenseQuery({ kind: 'sessions' });
/** The project's public settings: its name, and which sign-in methods and OAuth providers it offers. */
export const useProject = () => useQuery({ kind: 'project' }).data ?? null;
/** {@link useProject}, suspending until it is known. */
export const useSuspenseProject = () => useSuspenseQuery({ kind: 'project' });

const unknownSession: SessionInfo = { status: 'loading' };
/**
 * The writes waiting out an outage (`offlineWrites`), in every tab: what (`label`), since when, and where
 * (`waiting`, `sending`), and those the service refused or signing out dropped, with why, until
 * `client.dismissPendingChange(id)`. Empty while loading and without the option.
 */
export const usePendingChanges = (): PendingChange[] => useQuery({ kind: 'pendingChanges' }).data ?? EMPTY;
/** Whether someone is signed in, and why the last session ended. */
export const useSession = (): SessionInfo => useQuery({ kind: 'session' }).data ?? unknownSession;
/** Online / degraded / offline, with the last error and the diagnostics. */
export const useConnectivity = (): ConnectivitySnapshot | null => useQuery({ kind: 'connectivity' }).data ?? null;
const neverChanges = () => noop;
/**
 * Whether this browser can use passkeys (WebAuthn). Where it cannot (WebKitGTK, some WebViews),
 * show no passkey button: say passkeys are not available here, and offer the other ways to sign
 * in. False during server rendering and hydration, then the browser's answer.
 */
export const usePasskeysAvailable = (): boolean => useSyncExternalStore(neverChanges, passkeysAvailable, () => false);
/** Host mode, tabs connected, refreshes, cache entries and more. */
export const useBrokerStatus = (): BrokerStatus | null => useQuery({ kind: 'status' }).data ?? null;

// Project administration (a project owner signed in through `adminSignInWithPassword`).
/** Whether a project owner is signed in for the admin calls (a session apart from the app user's). */
export const useAdminSession = (): SessionInfo => useQuery({ kind: 'adminSession' }).data ?? unknownSession;
/** The projects the signed-in owner owns. */
export const useOwnedProjects = () => useQuery({ kind: 'admin.ownedProjects' }).data ?? EMPTY;
/** One owned project with its full configuration (the broker's own unless `projectId` names another). */
export const useAdminProject = (projectId?: string) => useQuery({ kind: 'admin.project', projectId }).data ?? null;
/** The project's API key sets (never their secrets). */
export const useApiKeys = (projectId?: string) => useQuery({ kind: 'admin.apiKeys', projectId }).data ?? EMPTY;
/** One API key of the project (or of `projectId`). */
export const useApiKey = (apiKeyId: string | null, projectId?: string) =>
  useQuery(apiKeyId === null ? null : { kind: 'admin.apiKey', apiKeyId, projectId }).data ?? null;
/** {@link useApiKey}, suspending until it is known. */
export const useSuspenseApiKey = (apiKeyId: string, projectId?: string) =>
  useSuspenseQuery({ kind: 'admin.apiKey', apiKeyId, projectId });
/** The project's e-mail templates. */
export const useEmailTemplates = (projectId?: string) =>
  useQuery({ kind: 'admin.emailTemplates', projectId }).data ?? EMPTY;
/** The team permissions the project defines. */
export const usePermissionDefinitions = (projectId?: string) =>
  useQuery({ kind: 'admin.permissionDefinitions', projectId }).data ?? EMPTY;
/** The project's sign-up and activity figures. */
export const useProjectMetrics = (projectId?: string) => useQuery({ kind: 'admin.metrics', projectId }).data ?? null;
/** The e-mails the project sent lately. */
export const useSentEmails = (projectId?: string) => useQuery({ kind: 'admin.sentEmails', projectId }).data ?? EMPTY;
/** {@link useOwnedProjects}, suspending until they are known. */
export const useSuspenseOwnedProjects = () => useSuspenseQuery({ kind: 'admin.ownedProjects' });
/** {@link useAdminProject}, suspending until it is known. */
export const useSuspenseAdminProject = (projectId?: string) => useSuspenseQuery({ kind: 'admin.project', projectId });
/** {@link useApiKeys}, suspending until they are known. */
export const useSuspenseApiKeys = (projectId?: string) => useSuspenseQuery({ kind: 'admin.apiKeys', projectId });
/** {@link useEmailTemplates}, suspending until they are known. */
export const useSuspenseEmailTemplates = (projectId?: string) =>
  useSuspenseQuery({ kind: 'admin.emailTemplates', projectId });
/** {@link usePermissionDefinitions}, suspending until they are known. */
export const useSuspensePermissionDefinitions = (projectId?: string) =>
  useSuspenseQuery({ kind: 'admin.permissionDefinitions', projectId });
/** {@link useProjectMetrics}, suspending until they are known. */
export const useSuspenseProjectMetrics = (projectId?: string) => useSuspenseQuery({ kind: 'admin.metrics', projectId });
/** {@link useSentEmails}, suspending until they are known. */
export const useSuspenseSentEmails = (projectId?: string) => useSuspenseQuery({ kind: 'admin.sentEmails', projectId });
