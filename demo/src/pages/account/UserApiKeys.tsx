import { useBrokerClient, useProject, useUserApiKeys } from '../../../../client/react/index.js';
import { Card, Empty, Loading } from '../../components/Card.js';
import { OwnedApiKeyList } from '../../components/OwnedApiKeys.js';

/** The person's keys (`useUserApiKeys`: every tab shows the same list), made and revoked through the client. */
function MyKeys() {
  const client = useBrokerClient();
  const keys = useUserApiKeys();
  return (
    <OwnedApiKeyList
      keys={keys}
      create={async (description, expiresAtMillis) =>
        (await client.createUserApiKey({ description, expiresAtMillis })).value
      }
      revoke={(id) => client.revokeUserApiKey(id)}
    />
  );
}

/** Account settings › API keys: the person's own keys, for their scripts to call this app as them. */
export function UserApiKeys() {
  const project = useProject();
  return (
    <Card title="API keys" description="Keys for your own scripts and integrations to call this app as you.">
      {project === null ? (
        <Loading />
      ) : project.config.allowUserApiKeys ? (
        <MyKeys />
      ) : (
        <Empty>
          This project does not let its users make API keys (an admin turns them on in the project settings).
        </Empty>
      )}
    </Card>
  );
}
