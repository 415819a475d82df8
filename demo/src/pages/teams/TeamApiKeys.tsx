import { useBrokerClient, useProject, useTeamApiKeys } from '../../../../client/react/index.js';
import { Card } from '../../components/Card.js';
import { OwnedApiKeyList } from '../../components/OwnedApiKeys.js';

/** The team's keys (`useTeamApiKeys`), for members with $manage_api_keys. */
function Keys({ teamId }: { teamId: string }) {
  const client = useBrokerClient();
  const keys = useTeamApiKeys(teamId);
  return (
    <OwnedApiKeyList
      keys={keys}
      create={async (description, expiresAtMillis) =>
        (await client.createTeamApiKey(teamId, { description, expiresAtMillis })).value
      }
      revoke={(id) => client.revokeTeamApiKey(teamId, id)}
    />
  );
}

/** A team's API keys, where the project allows them and the person may manage them. */
export function TeamApiKeys({ teamId, canManage }: { teamId: string; canManage: boolean }) {
  const project = useProject();
  if (!canManage || project?.config.allowTeamApiKeys !== true) return null;
  return (
    <Card title="Team API keys" description="Keys for the team's integrations; only members who manage keys see them.">
      <Keys teamId={teamId} />
    </Card>
  );
}
