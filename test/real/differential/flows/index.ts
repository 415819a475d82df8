import type { Flow } from '../flow.js';
import { anonymousFlow } from './anonymous.js';
import { adminFlow, miscFlow } from './misc.js';
import { oauthProviderFlow, ownedApiKeyFlow, receivedInvitationFlow } from './ownResources.js';
import { authHeadersFlow, projectFlow } from './project.js';
import { paymentsFlow } from './payments.js';
import { projectPermissionFlow } from './projectPermissions.js';
import { otpFlow, passwordFlow, sessionFlow } from './signIn.js';
import { permissionFlow, teamFlow } from './teams.js';
import { connectedAccountFlow, notificationPreferenceFlow } from './userSettings.js';
import { contactChannelFlow, userFlow } from './users.js';

/** Every flow of the differential check, in the order they run. */
export const FLOWS: readonly Flow[] = [
  projectFlow,
  authHeadersFlow,
  passwordFlow,
  otpFlow,
  sessionFlow,
  userFlow,
  teamFlow,
  contactChannelFlow,
  permissionFlow,
  adminFlow,
  miscFlow,
  anonymousFlow,
  projectPermissionFlow,
  notificationPreferenceFlow,
  connectedAccountFlow,
  oauthProviderFlow,
  ownedApiKeyFlow,
  receivedInvitationFlow,
  paymentsFlow,
];
