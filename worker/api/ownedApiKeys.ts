import type { BrokerApi } from '../../contract/api.js';
import * as endpoints from '../../protocol/endpoints/index.js';
import { camelize } from '../../protocol/models.js';
import type { ApiContext } from './context.js';

type OwnedApiKeyMethods = 'createUserApiKey' | 'revokeUserApiKey' | 'createTeamApiKey' | 'revokeTeamApiKey';

/**
 * The API keys the signed-in user and its teams hold for their own integrations. A key's whole value is in the create
 * answer only, which goes back to the calling tab and nowhere else: the shared lists hold the last four characters.
 */
export function ownedApiKeyMethods({
  transports,
  queries,
}: Pick<ApiContext, 'transports' | 'queries'>): Pick<BrokerApi, OwnedApiKeyMethods> {
  const t = transports.client;
  const wire = (input: { description: string; expiresAtMillis: number | null; isPublic?: boolean | undefined }) => ({
    description: input.description,
    expires_at_millis: input.expiresAtMillis,
    ...(input.isPublic === undefined ? {} : { is_public: input.isPublic }),
  });
  return {
    async createUserApiKey(input) {
      const key = camelize(await endpoints.createUserApiKey(t, { user_id: 'me', ...wire(input) }));
      queries.invalidate({ kind: 'userApiKeys' });
      return key;
    },
    async revokeUserApiKey(apiKeyId) {
      const key = camelize(await endpoints.updateUserApiKey(t, 'me', apiKeyId, { revoked: true }));
      queries.invalidate({ kind: 'userApiKeys' });
      return key;
    },
    async createTeamApiKey(teamId, input) {
      const key = camelize(await endpoints.createTeamApiKey(t, { team_id: teamId, ...wire(input) }));
      queries.invalidate({ kind: 'teamApiKeys', teamId });
      return key;
    },
    async revokeTeamApiKey(teamId, apiKeyId) {
      const key = camelize(await endpoints.updateTeamApiKey(t, teamId, apiKeyId, { revoked: true }));
      queries.invalidate({ kind: 'teamApiKeys', teamId });
      return key;
    },
  };
}
