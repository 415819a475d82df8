import type { Router } from '../http/router.js';
import { registerAdminMiscRoutes } from './adminMisc.js';
import { registerApiKeyRoutes } from './apiKeys.js';
import { registerCliRoutes } from './cli.js';
import { registerConnectedAccountRoutes } from './connectedAccounts.js';
import { registerContactChannelRoutes } from './contactChannels.js';
import { registerEmailTemplateRoutes } from './emailTemplates.js';
import { registerInvitationRoutes } from './invitations.js';
import { registerMemberProfileRoutes } from './memberProfiles.js';
import { registerMembershipRoutes } from './memberships.js';
import { registerMfaRoutes } from './mfa.js';
import { registerMiscRoutes } from './misc.js';
import { registerOAuthRoutes } from './oauth.js';
import { registerOAuthTokenRoute } from './oauthToken.js';
import { registerOtpRoutes } from './otp.js';
import { registerPasskeyRoutes } from './passkeys.js';
import { registerPasswordRoutes } from './password.js';
import { registerPermissionRoutes } from './permissions.js';
import { registerProjectRoutes } from './projects.js';
import { registerSessionRoutes } from './sessions.js';
import { registerTeamRoutes } from './teams.js';
import { registerUserRoutes } from './users.js';

/** Every `/api/v1` route, by area. */
export function registerApiRoutes(router: Router): void {
  registerMiscRoutes(router);
  registerPasswordRoutes(router);
  registerOtpRoutes(router);
  registerMfaRoutes(router);
  registerPasskeyRoutes(router);
  registerOAuthRoutes(router);
  registerOAuthTokenRoute(router);
  registerSessionRoutes(router);
  registerCliRoutes(router);
  registerUserRoutes(router);
  registerTeamRoutes(router);
  registerMembershipRoutes(router);
  registerMemberProfileRoutes(router);
  registerInvitationRoutes(router);
  registerPermissionRoutes(router);
  registerContactChannelRoutes(router);
  registerConnectedAccountRoutes(router);
  registerProjectRoutes(router);
  registerApiKeyRoutes(router);
  registerEmailTemplateRoutes(router);
  registerAdminMiscRoutes(router);
}
