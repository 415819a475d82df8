import { requireNonEmptyString, requireObject, requireSegment, requireUuid } from '../../protocol/args.js';
import * as endpoints from '../../protocol/endpoints/index.js';
import { InvalidArgumentError } from '../../protocol/errors/errors.js';
import { emailTemplateTypes, type EmailTemplateType } from '../../protocol/resources/admin.js';
import type { ProjectUpdate } from '../../protocol/resources/project.js';
import { staticTokenSource } from '../../protocol/transport.js';
import { requireAdminSession, type BrokerCore } from '../core.js';
import { camelize } from '../models.js';
import { sessionEnd } from '../session.js';
import { optionalJson, optionalString, optionalStringArray, requireInput } from './args.js';
import { internalSignInTransport, signInWith } from './auth.js';
import type { AdminOptions, BrokerApi } from './types.js';

function projectIdOf(options: AdminOptions | undefined): string | undefined {
  if (options === undefined) return undefined;
  const o = requireInput(options, 'options', ['projectId']);
  return o.projectId === undefined ? undefined : requireNonEmptyString(o.projectId, 'options.projectId');
}

function templateType(value: unknown): EmailTemplateType {
  if (!emailTemplateTypes.includes(value as EmailTemplateType)) throw new InvalidArgumentError('type', `type must be one of ${emailTemplateTypes.join(', ')}.`);
  return value as EmailTemplateType;
}

/**
 * Project administration by a project owner: they sign in to the `internal` project, and its
 * access token (the admin access token) is renewed by the broker like any session's.
 */
export function adminMethods(core: BrokerCore): Pick<
  BrokerApi,
  | 'adminSignInWithPassword'
  | 'adminSignInWithMfa'
  | 'adminSignOut'
  | 'adminCreateProject'
  | 'adminUpdateProject'
  | 'adminCreateApiKey'
  | 'adminRevokeApiKey'
  | 'adminUpdateEmailTemplate'
  | 'adminResetEmailTemplate'
  | 'adminCreatePermissionDefinition'
  | 'adminUpdatePermissionDefinition'
  | 'adminDeletePermissionDefinition'
  | 'adminSendTestEmail'
  | 'adminCreateSvixToken'
> {
  return {
    async adminSignInWithPassword(input) {
      const session = requireAdminSession(core);
      const i = requireInput(input, 'input', ['email', 'password']);
      return signInWith(session, () => endpoints.signInWithPassword(internalSignInTransport(core), { email: i.email as string, password: i.password as string }));
    },
    async adminSignInWithMfa(input) {
      const session = requireAdminSession(core);
      const i = requireInput(input, 'input', ['attemptCode', 'totp']);
      return signInWith(session, () => endpoints.signInWithMfa(internalSignInTransport(core), { attempt_code: i.attemptCode as string, totp: i.totp as string }));
    },
    async adminSignOut() {
      const session = requireAdminSession(core);
      const key = session.sessionKey;
      if (key === null) return;
      // As for the user's sign-out: never renew the token (that waits for the network) just to sign out.
      const token = await session.currentAccessToken();
      if (token !== null && !core.connectivity.isOffline) {
        await endpoints.signOutCurrentSession(core.internal().withUserTokens(staticTokenSource(token)), { maxAttempts: 1 }).catch(() => undefined);
      }
      await session.end(sessionEnd('signed-out', core.clock.now()), key);
    },
    async adminCreateProject(input) {
      const i = requireInput(input, 'input', ['displayName', 'description', 'config']);
      const project = await endpoints.createProject(core.internal(), {
        display_name: requireNonEmptyString(i.displayName, 'displayName'),
        ...(i.description === undefined ? {} : { description: optionalString(i.description, 'description')! }),
        ...(i.config === undefined ? {} : { config: requireObject(i.config, 'config') as ProjectUpdate['config'] }),
      });
      core.invalidate({ kind: 'admin.ownedProjects' });
      return camelize(project);
    },
    async adminUpdateProject(update, options) {
      const projectId = projectIdOf(options);
      const project = camelize(await endpoints.updateCurrentProject(core.admin(projectId), requireObject(update, 'update') as ProjectUpdate));
      core.setQueryData({ kind: 'admin.project', ...(projectId === undefined ? {} : { projectId }) }, project);
      core.invalidate({ kind: 'admin.ownedProjects' });
      core.invalidate({ kind: 'project' });
      return project;
    },
    async adminCreateApiKey(input, options) {
      const projectId = projectIdOf(options);
      const i = requireInput(input, 'input', ['description', 'expiresAtMillis', 'hasPublishableClientKey', 'hasSecretServerKey', 'hasSuperSecretAdminKey']);
      if (typeof i.expiresAtMillis !== 'number' || !Number.isFinite(i.expiresAtMillis)) throw new InvalidArgumentError('expiresAtMillis', 'expiresAtMillis must be a time in milliseconds.');
      const keys = await endpoints.createApiKey(core.admin(projectId), {
        description: requireNonEmptyString(i.description, 'description'),
        expires_at_millis: i.expiresAtMillis,
        has_publishable_client_key: i.hasPublishableClientKey === true,
        has_secret_server_key: i.hasSecretServerKey === true,
        has_super_secret_admin_key: i.hasSuperSecretAdminKey === true,
      });
      core.invalidate({ kind: 'admin.apiKeys' });
      return camelize(keys);
    },
    async adminRevokeApiKey(apiKeyId, options) {
      const key = await endpoints.revokeApiKey(core.admin(projectIdOf(options)), requireUuid(apiKeyId, 'apiKeyId'));
      core.invalidate({ kind: 'admin.apiKeys' });
      return camelize(key);
    },
    async adminUpdateEmailTemplate(type, update, options) {
      const u = requireInput(update, 'update', ['subject', 'content']);
      const template = await endpoints.updateEmailTemplate(core.admin(projectIdOf(options)), templateType(type), {
        ...(u.subject === undefined ? {} : { subject: optionalString(u.subject, 'update.subject')! }),
        ...(u.content === undefined ? {} : { content: optionalJson(u.content, 'update.content')! }),
      });
      core.invalidate({ kind: 'admin.emailTemplates' });
      return camelize(template);
    },
    async adminResetEmailTemplate(type, options) {
      await endpoints.resetEmailTemplate(core.admin(projectIdOf(options)), templateType(type));
      core.invalidate({ kind: 'admin.emailTemplates' });
    },
    async adminCreatePermissionDefinition(input, options) {
      const i = requireInput(input, 'input', ['id', 'description', 'containedPermissionIds']);
      const definition = await endpoints.createPermissionDefinition(core.admin(projectIdOf(options)), {
        id: requireSegment(i.id, 'id'),
        ...(i.description === undefined ? {} : { description: optionalString(i.description, 'description')! }),
        ...(i.containedPermissionIds === undefined ? {} : { contained_permission_ids: optionalStringArray(i.containedPermissionIds, 'containedPermissionIds')! }),
      });
      core.invalidate({ kind: 'admin.permissionDefinitions' });
      return camelize(definition);
    },
    async adminUpdatePermissionDefinition(permissionId, update, options) {
      const u = requireInput(update, 'update', ['id', 'description', 'containedPermissionIds']);
      const definition = await endpoints.updatePermissionDefinition(core.admin(projectIdOf(options)), requireSegment(permissionId, 'permissionId'), {
        ...(u.id === undefined ? {} : { id: requireSegment(u.id, 'update.id') }),
        ...(u.description === undefined ? {} : { description: optionalString(u.description, 'update.description')! }),
        ...(u.containedPermissionIds === undefined ? {} : { contained_permission_ids: optionalStringArray(u.containedPermissionIds, 'update.containedPermissionIds')! }),
      });
      core.invalidate({ kind: 'admin.permissionDefinitions' });
      return camelize(definition);
    },
    async adminDeletePermissionDefinition(permissionId, options) {
      await endpoints.deletePermissionDefinition(core.admin(projectIdOf(options)), requireSegment(permissionId, 'permissionId'));
      core.invalidate({ kind: 'admin.permissionDefinitions' });
    },
    async adminSendTestEmail(input, options) {
      const i = requireInput(input, 'input', ['recipientEmail', 'emailConfig']);
      const c = requireInput(i.emailConfig, 'emailConfig', ['host', 'port', 'username', 'password', 'senderName', 'senderEmail']);
      if (typeof c.port !== 'number') throw new InvalidArgumentError('emailConfig.port', 'port must be a number.');
      const result = await endpoints.sendTestEmail(core.admin(projectIdOf(options)), {
        recipient_email: requireNonEmptyString(i.recipientEmail, 'recipientEmail'),
        email_config: {
          host: String(c.host),
          port: c.port,
          username: String(c.username),
          password: String(c.password),
          sender_name: String(c.senderName),
          sender_email: String(c.senderEmail),
        },
      });
      core.invalidate({ kind: 'admin.sentEmails' });
      return { success: result.success, ...(result.error_message === undefined ? {} : { errorMessage: result.error_message }) };
    },
    async adminCreateSvixToken(options) {
      return endpoints.createSvixToken(core.admin(projectIdOf(options)));
    },
  };
}
