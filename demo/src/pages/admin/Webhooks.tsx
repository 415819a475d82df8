import { useState } from 'react';
import { useBrokerClient } from '../../../../client/react/index.js';
import { ErrorText } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Card } from '../../components/Card.js';
import { useAction } from '../../lib/useAction.js';
import { T } from '../../testids.js';

const events = [
  'user.created',
  'user.updated',
  'user.deleted',
  'team.created',
  'team.updated',
  'team.deleted',
  'team_membership.created',
  'team_membership.deleted',
  'team_permission.created',
  'team_permission.deleted',
];

/** Webhooks are delivered through Svix; its app portal needs a short-lived token. */
export function Webhooks({ projectId }: { projectId: string }) {
  const client = useBrokerClient();
  const [token, setToken] = useState<string | null>(null);
  const create = useAction(async () => setToken((await client.adminCreateSvixToken({ projectId })).token));
  return (
    <div className="stack">
      <Card
        title="Webhooks"
        description="The service tells your server about changes by calling your endpoints. Endpoints are managed in the Svix app portal, opened with a token."
      >
        <div className="stack">
          <div className="row">
            <Button variant="primary" busy={create.busy} onClick={() => void create.run()} testid={T.svixTokenCreate}>
              {token ? 'Create another token' : 'Create a portal token'}
            </Button>
          </div>
          <ErrorText error={create.error} />
          {token && (
            <div className="token-result">
              <span className="muted small">Svix app-portal token:</span>
              <code className="wrap-anywhere" data-testid={T.svixToken}>
                {token}
              </code>
            </div>
          )}
        </div>
      </Card>
      <Card title="Events">
        <div className="chips">
          {events.map((e) => (
            <code key={e} className="chip">
              {e}
            </code>
          ))}
        </div>
      </Card>
    </div>
  );
}
