import type { AdminOptions, BrokerApi } from '../../contract/api.js';
import { sessionEnd } from '../../contract/state.js';
import * as endpoints from '../../protocol/endpoints/index.js';
import { ClientError } from '../../protocol/errors/errors.js';
import { camelize, snakeize } from '../../protocol/models.js';
import type { ProjectUpdate } from '../../protocol/resources/project.js';
import { staticTokenSource } from '../../protocol/transport.js';
import { signInWith } from './auth.js';
import type { ApiContext, ApiSession } from './context.js';

type AdminMethods =
  | 'adminSignInWithPassword'
  | 'adminSignInWithMfa'
  | 'adminSignOut'
  | 'adminCreateProject'
  | 'adminUpdateProject'
  | 'adminCreateApiKey'
  | 'adminRevokeApiKey'
  | 'adminUpdateApiKey'
  | 'adminDeleteProject'
  | 'adminUpdateEmailTemplate'
  | 'adminResetEmailTemplate'
  | 'adminCreatePermissionDefinition'
  | 'adminUpdatePermissionDefinition'
  | 'adminDeletePermissionDefinition'
  | 'adminSendTestEmail'
  | 'adminCreateSvixToken';

/**
 * Project administration by a project owner: they sign in to the `internal` project, and its
 * access token (the admin access token) is renewed by the broker like any session's.
 */
export function adminMethods({
  adminSession,
  transports,
  queries,
  connectivity,
  clock,
}: Pick<ApiContext, 'adminSession' | 'transports' | 'queries' | 'connectivity' | 'clock'>): Pick<
  BrokerApi,
  AdminMethods
> {
  const owner = (): ApiSession => {
    if (adminSession === null) {
      throw new ClientError(
        'NOT_SIGNED_IN',
        'Admin calls need internalPublishableClientKey in the broker config (project owners sign in to the internal project).',
      );
    }
    return adminSession;
  };
  const admin = (options: AdminOptions | undefined) => transports.admin(options?.projectId);
  return {
    adminSignInWithPassword: async ({ email, password }) =>
      signInWith(owner(), () => endpoints.signInWithPassword(transports.internalSignIn(), { email, password })),
    adminSignInWithMfa: async ({ attemptCode, totp }) =>
      signInWith(owner(), () =>
        endpoints.signInWithMfa(transports.internalSignIn(), { attempt_code: attemptCode, totp }),
      ),
    async adminSignOut() {
      const session = owner();
      const key = session.sessionKey;
      if (key === null) return;
      // As for the user's sign-out: never renew the token (that waits for the network) just to sign out.
      const token = await session.currentAccessToken();
      if (token !== null && !connectivity.isOffline) {
        await endpoints
          .signOutCurrentSession(transports.internal().withUserTokens(staticTokenSource(token)), { maxAttempts: 1 })
          .catch(() => undefined);
      }
      await session.end(sessionEnd('signed-out', clock.now()), key);
    },
    async adminCreateProject({ displayName, description, config }) {
      const project = await endpoints.createProject(transports.internal(), {
        display_name: displayName,
        ...(description === undefined ? {} : { description }),
        ...(config === undefined ? {} : { config: snakeize(config) }),
      });
      queries.invalidate({ kind: 'admin.ownedProjects' });
      return camelize(project);
    },
    async adminUpdateProject(update, options) {
      const project = camelize(
        await endpoints.updateCurrentProject(admin(options), snakeize({ ...update }) as ProjectUpdate),
      );
      queries.setQueryData(
        { kind: 'admin.project', ...(options?.projectId === undefined ? {} : { projectId: options.projectId }) },
        project,
      );
      queries.invalidate({ kind: 'admin.ownedProjects' });
      queries.invalidate({ kind: 'project' });
      return project;
    },
    async adminCreateApiKey(input, options) {
      const keys = await endpoints.createApiKey(admin(options), {
        description: input.description,
        expires_at_millis: input.expiresAtMillis,
        has_publishable_client_key: input.hasPublishableClientKey,
        has_secret_server_key: input.hasSecretServerKey,
        has_super_secret_admin_key: input.hasSuperSecretAdminKey,
      });
      queries.invalidate({ kind: 'admin.apiKeys' });
      return camelize(keys);
    },
    async adminDeleteProject(options) {
      await endpoints.deleteCurrentProject(admin(options));
      queries.invalidate({ kind: 'admin.ownedProjects' });
      queries.invalidate({ kind: 'admin.project' });
    },
    async adminUpdateApiKey(apiKeyId, { description }, options) {
      const key = camelize(await endpoints.updateApiKey(admin(options), apiKeyId, { description }));
      queries.setQueryData(
        {
          kind: 'admin.apiKey',
          apiKeyId,
          ...(options?.projectId === undefined ? {} : { projectId: options.projectId }),
        },
        key,
      );
      queries.invalidate({ kind: 'admin.apiKeys' });
      return key;
    },
    async adminRevokeApiKey(apiKeyId, options) {
      const key = await endpoints.revokeApiKey(admin(options), apiKeyId);
      queries.invalidate({ kind: 'admin.apiKeys' });
      queries.invalidate({ kind: 'admin.apiKey', apiKeyId });
      return camelize(key);
    },
    async adminUpdateEmailTemplate(type, update, options) {
      const template = await endpoints.updateEmailTemplate(admin(options), type, update);
      queries.invalidate({ kind: 'admin.emailTemplates' });
      return camelize(template);
    },
    async adminResetEmailTemplate(type, options) {
      await endpoints.resetEmailTemplate(admin(options), type);
      queries.invalidate({ kind: 'admin.emailTemplates' });
    },
    async adminCreatePermissionDefinition({ id, description, containedPermissionIds }, options) {
      const definition = await endpoints.createPermissionDefinition(admin(options), {
        id,
        ...(description === undefined ? {} : { description }),
        ...(containedPermissionIds === undefined ? {} : { contained_permission_ids: containedPermissionIds }),
      });
      queries.invalidate({ kind: 'admin.permissionDefinitions' });
      return camelize(definition);
    },
    async adminUpdatePermissionDefinition(permissionId, { id, description, containedPermissionIds }, options) {
      const definition = await endpoints.updatePermissionDefinition(admin(options), permissionId, {
        ...(id === undefined ? {} : { id }),
        ...(description === undefined ? {} : { description }),
        ...(containedPermissionIds === undefined ? {} : { contained_permission_ids: containedPermissionIds }),
      });
      queries.invalidate({ kind: 'admin.permissionDefinitions' });
      return camelize(definition);
    },
    async adminDeletePermissionDefinition(permissionId, options) {
      await endpoints.deletePermissionDefinition(admin(options), permissionId);
      queries.invalidate({ kind: 'admin.permissionDefinitions' });
    },
    async adminSendTestEmail({ recipientEmail, emailConfig: c }, options) {
      const result = await endpoints.sendTestEmail(admin(options), {
        recipient_email: recipientEmail,
        email_config: {
          host: c.host,
          port: c.port,
          username: c.username,
          password: c.password,
          sender_name: c.senderName,
          sender_email: c.senderEmail,
        },
      });
      queries.invalidate({ kind: 'admin.sentEmails' });
      return {
        success: result.success,
        ...(result.error_message === undefined ? {} : { errorMessage: result.error_message }),
      };
    },
    adminCreateSvixToken: async (options) => endpoints.createSvixToken(admin(options)),
  };
}
