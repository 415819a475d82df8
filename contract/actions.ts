import type { ActionName } from './methods.js';

/**
 * The methods an app calls through the client as they are: the tab's copy of the `action` role in
 * `methods.ts`, as a plain list so that the tab does not load the whole table. The compiler checks
 * both say the same: a missing or extra name fails to build.
 */
export const actionNames = [
  'status',
  'read',
  'refetch',
  'getAccessToken',
  'signUpWithPassword',
  'signInWithPassword',
  'signUpAnonymously',
  'sendMagicLink',
  'signInWithMagicLink',
  'signInWithOtp',
  'signInWithMfa',
  'signOut',
  'sendPasswordResetEmail',
  'checkPasswordResetCode',
  'resetPassword',
  'updatePassword',
  'setPassword',
  'updateUser',
  'setSelectedTeam',
  'deleteUser',
  'createContactChannel',
  'updateContactChannel',
  'deleteContactChannel',
  'sendContactChannelVerification',
  'verifyEmail',
  'checkEmailVerificationCode',
  'revokeSession',
  'getConnectedAccountAccessToken',
  'updateNotificationPreference',
  'createTeam',
  'updateTeam',
  'deleteTeam',
  'leaveTeam',
  'removeTeamMember',
  'updateTeamProfile',
  'inviteToTeam',
  'revokeTeamInvitation',
  'acceptTeamInvitation',
  'checkTeamInvitationCode',
  'getTeamInvitationDetails',
  'getPartialUser',
  'getAuthHeaders',
  'confirmCliLogin',
  'adminSignInWithPassword',
  'adminSignInWithMfa',
  'adminSignOut',
  'adminCreateProject',
  'adminUpdateProject',
  'adminCreateApiKey',
  'adminRevokeApiKey',
  'adminUpdateApiKey',
  'adminDeleteProject',
  'adminUpdateEmailTemplate',
  'adminResetEmailTemplate',
  'adminCreatePermissionDefinition',
  'adminUpdatePermissionDefinition',
  'adminDeletePermissionDefinition',
  'adminSendTestEmail',
  'adminCreateSvixToken',
] as const satisfies readonly ActionName[];

type Listed = (typeof actionNames)[number];
/** Fails to compile when an action of methods.ts is missing here. */
const everyActionListed: [Exclude<ActionName, Listed>] extends [never] ? true : Exclude<ActionName, Listed> = true;
void everyActionListed;
