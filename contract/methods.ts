import type { BrokerApi } from './api.js';

/**
 * Who calls each broker method:
 * - `action`: the app, through the client as is (`client.signInWithPassword(…)`);
 * - `step`: the client's own browser-side flows (passkey ceremonies, OAuth redirects), which the
 *   app calls under another name (`client.registerPasskey()`, `client.signInWithOAuth(…)`);
 * - `connection`: the client's plumbing (subscriptions, liveness, the window's state).
 * The compiler checks that this lists every method of BrokerApi and nothing else: a new method
 * gets its role here, its argument rules in `arguments.ts`, and the client picks it up.
 */
export type MethodRole = 'action' | 'step' | 'connection';
/** The name of a method of {@link BrokerApi}. */
export type MethodName = keyof BrokerApi;

export const methodRoles = {
  status: 'action',
  subscribe: 'connection',
  unsubscribe: 'connection',
  read: 'action',
  refetch: 'action',
  reportBrowserState: 'connection',
  goodbye: 'connection',
  watchLifetime: 'connection',
  getAccessToken: 'action',
  configProblems: 'connection',
  signUpWithPassword: 'action',
  signInWithPassword: 'action',
  signUpAnonymously: 'action',
  sendMagicLink: 'action',
  signInWithMagicLink: 'action',
  signInWithOtp: 'action',
  signInWithMfa: 'action',
  beginPasskeyRegistration: 'step',
  finishPasskeyRegistration: 'step',
  beginPasskeySignIn: 'step',
  finishPasskeySignIn: 'step',
  startOAuth: 'step',
  completeOAuth: 'step',
  signOut: 'action',
  sendPasswordResetEmail: 'action',
  checkPasswordResetCode: 'action',
  resetPassword: 'action',
  updatePassword: 'action',
  setPassword: 'action',
  updateUser: 'action',
  setSelectedTeam: 'action',
  deleteUser: 'action',
  createContactChannel: 'action',
  updateContactChannel: 'action',
  deleteContactChannel: 'action',
  sendContactChannelVerification: 'action',
  verifyEmail: 'action',
  checkEmailVerificationCode: 'action',
  revokeSession: 'action',
  getConnectedAccountAccessToken: 'action',
  updateNotificationPreference: 'action',
  createTeam: 'action',
  updateTeam: 'action',
  deleteTeam: 'action',
  leaveTeam: 'action',
  removeTeamMember: 'action',
  updateTeamProfile: 'action',
  inviteToTeam: 'action',
  revokeTeamInvitation: 'action',
  acceptTeamInvitation: 'action',
  checkTeamInvitationCode: 'action',
  getTeamInvitationDetails: 'action',
  getPartialUser: 'action',
  getAuthHeaders: 'action',
  confirmCliLogin: 'action',
  appToken: 'step',
  sendAppRequest: 'step',
  dismissPendingChange: 'action',
  createUserApiKey: 'action',
  revokeUserApiKey: 'action',
  createTeamApiKey: 'action',
  revokeTeamApiKey: 'action',
  updateOAuthProvider: 'action',
  deleteOAuthProvider: 'action',
  acceptTeamInvitationById: 'action',
  createCheckoutUrl: 'action',
  cancelSubscription: 'action',
  switchSubscription: 'action',
  refreshPayments: 'action',
  adminSignInWithPassword: 'action',
  adminSignInWithMfa: 'action',
  adminSignOut: 'action',
  adminCreateProject: 'action',
  adminUpdateProject: 'action',
  adminCreateApiKey: 'action',
  adminRevokeApiKey: 'action',
  adminUpdateApiKey: 'action',
  adminDeleteProject: 'action',
  adminUpdateEmailTemplate: 'action',
  adminResetEmailTemplate: 'action',
  adminCreatePermissionDefinition: 'action',
  adminUpdatePermissionDefinition: 'action',
  adminDeletePermissionDefinition: 'action',
  adminSendTestEmail: 'action',
  adminCreateSvixToken: 'action',
} as const satisfies Record<MethodName, MethodRole>;

type RoleOf<R extends MethodRole> = { [K in MethodName]: (typeof methodRoles)[K] extends R ? K : never }[MethodName];
/** The names of the broker methods an app calls through the client as they are. */
export type ActionName = RoleOf<'action'>;

export const methodNames = Object.keys(methodRoles) as MethodName[];

/** Whether `name` is a method the broker serves (an own entry, never something inherited). */
export function isMethodName(name: unknown): name is MethodName {
  return typeof name === 'string' && Object.hasOwn(methodRoles, name);
}
