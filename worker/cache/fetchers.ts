import { ClientError } from '../../protocol/errors/errors.js';
import * as endpoints from '../../protocol/endpoints/index.js';
import type { BrokerCore } from '../core.js';
import { camelize } from '../models.js';
import type { QuerySpec } from './queries.js';

/** Lists of a signed-out user are empty without asking the service. */
function signedIn(core: BrokerCore): boolean {
  return core.session.sessionKey !== null;
}

function notSignedIn(what: string): never {
  throw new ClientError('NOT_SIGNED_IN', `Sign in to see ${what}.`);
}

/** How each cached query is fetched. Wire objects become camelCase models here, once per fetch. */
export function fetcherFor(core: BrokerCore, spec: QuerySpec): () => Promise<unknown> {
  const t = core.client;
  switch (spec.kind) {
    case 'currentUser':
      return async () => (signedIn(core) ? camelize(await endpoints.getCurrentUser(t)) : null);
    case 'teams':
      return async () => (signedIn(core) ? camelize(await endpoints.listTeams(t, { userId: 'me' })) : []);
    case 'team':
      return async () => (signedIn(core) ? camelize(await endpoints.getTeam(t, spec.teamId)) : notSignedIn('a team'));
    case 'teamMembers':
      return async () => (signedIn(core) ? camelize(await endpoints.listTeamMemberProfiles(t, { teamId: spec.teamId })) : []);
    case 'teamInvitations':
      return async () => (signedIn(core) ? camelize(await endpoints.listTeamInvitations(t, spec.teamId)) : []);
    case 'permissions':
      return async () =>
        signedIn(core) ? camelize(await endpoints.listTeamPermissions(t, { team_id: spec.teamId, user_id: 'me', recursive: spec.recursive ?? true })) : [];
    case 'contactChannels':
      return async () => (signedIn(core) ? camelize(await endpoints.listContactChannels(t, { userId: 'me' })) : []);
    case 'sessions':
      return async () => (signedIn(core) ? camelize(await endpoints.listSessions(t, 'me')) : []);
    case 'project':
      return async () => camelize(await endpoints.getCurrentProject(t));
    case 'admin.ownedProjects':
      return async () => camelize(await endpoints.listOwnedProjects(core.internal()));
    case 'admin.project':
      return async () => camelize(await endpoints.getCurrentProject(core.admin(spec.projectId)));
    case 'admin.apiKeys':
      return async () => camelize(await endpoints.listApiKeys(core.admin(spec.projectId)));
    case 'admin.emailTemplates':
      return async () => camelize(await endpoints.listEmailTemplates(core.admin(spec.projectId)));
    case 'admin.permissionDefinitions':
      return async () => camelize(await endpoints.listPermissionDefinitions(core.admin(spec.projectId)));
    case 'admin.metrics':
      return async () => camelize(await endpoints.getProjectMetrics(core.admin(spec.projectId)));
    case 'admin.sentEmails':
      return async () => camelize(await endpoints.listSentEmails(core.admin(spec.projectId)));
    case 'session':
    case 'adminSession':
    case 'connectivity':
    case 'status':
      throw new ClientError('BROKER_UNAVAILABLE', `${spec.kind} is live broker state, not a cached query.`);
  }
}
