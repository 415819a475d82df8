import type { OAuthProviderModel } from '../../../../client/index.js';
import { useBrokerClient, useOAuthProviders } from '../../../../client/react/index.js';
import { ErrorText } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Card, Empty } from '../../components/Card.js';
import { ProviderIcon } from '../../components/ProviderIcon.js';
import { providerName } from '../../lib/format.js';
import { useAction } from '../../lib/useAction.js';
import { T } from '../../testids.js';

function ProviderRow({ provider }: { provider: OAuthProviderModel }) {
  const client = useBrokerClient();
  const update = useAction((change: { allowSignIn?: boolean; allowConnectedAccounts?: boolean }) =>
    client.updateOAuthProvider(provider.id, change),
  );
  const remove = useAction(() => client.deleteOAuthProvider(provider.id));
  return (
    <li
      className="list-row list-row-block"
      data-testid={T.oauthProviderRow}
      data-provider={provider.type}
      data-sign-in={provider.allowSignIn}
      data-connected={provider.allowConnectedAccounts}
    >
      <div className="row between wrap">
        <span className="row">
          <ProviderIcon id={provider.type} />
          <b>{providerName(provider.type)}</b>
          <span className="muted small">{provider.email ?? 'no e-mail given'}</span>
        </span>
        <div className="row wrap">
          <label className="row small">
            <input
              type="checkbox"
              checked={provider.allowSignIn}
              disabled={update.busy}
              onChange={(e) => void update.run({ allowSignIn: e.target.checked })}
              data-testid={T.oauthProviderSignIn}
            />
            Sign in with it
          </label>
          <label className="row small">
            <input
              type="checkbox"
              checked={provider.allowConnectedAccounts}
              disabled={update.busy}
              onChange={(e) => void update.run({ allowConnectedAccounts: e.target.checked })}
              data-testid={T.oauthProviderConnected}
            />
            Let this app use it
          </label>
          <Button
            size="small"
            variant="danger"
            busy={remove.busy}
            onClick={() => void remove.run()}
            testid={T.oauthProviderRemove}
          >
            Remove
          </Button>
        </div>
      </div>
      <ErrorText error={update.error ?? remove.error} />
    </li>
  );
}

/**
 * The accounts at other services linked to this person (`useOAuthProviders`), several of one provider included: which
 * sign them in, which this app may use, and removing one.
 */
export function OAuthProviders() {
  const providers = useOAuthProviders();
  return (
    <Card
      title="Sign-in providers"
      description="Each account you linked: whether it signs you in, and whether this app may call it for you. One account per provider signs you in."
    >
      {providers.length === 0 ? (
        <Empty>No account linked yet.</Empty>
      ) : (
        <ul className="list">
          {providers.map((provider) => (
            <ProviderRow key={provider.id} provider={provider} />
          ))}
        </ul>
      )}
    </Card>
  );
}
