import { useState, type FormEvent } from 'react';
import { isKnownError, type User } from '../../../../client/index.js';
import {
  useBrokerClient,
  useConnectedAccount,
  useConnectedAccounts,
  useProject,
} from '../../../../client/react/index.js';
import { ErrorText } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Badge, Card, Empty } from '../../components/Card.js';
import { Field } from '../../components/Field.js';
import { ProviderIcon } from '../../components/ProviderIcon.js';
import { providerName } from '../../lib/format.js';
import { useAction } from '../../lib/useAction.js';
import { T } from '../../testids.js';

const exampleScopes: Record<string, string> = {
  github: 'repo',
  google: 'https://www.googleapis.com/auth/drive.readonly',
};

function ProviderRow({ providerId }: { providerId: string }) {
  const client = useBrokerClient();
  const account = useConnectedAccount(providerId);
  const [scope, setScope] = useState('');
  const [token, setToken] = useState<{ scope: string; value: string } | null>(null);
  const link = useAction((scopes: string[]) => client.linkOAuthAccount(providerId, scopes));
  const fetchToken = useAction(async (wanted: string) => {
    if (account === null) return;
    setToken(null);
    const value = await account.getAccessToken(wanted === '' ? undefined : wanted.split(/\s+/));
    setToken({ scope: wanted, value });
  });
  const onToken = (event: FormEvent) => {
    event.preventDefault();
    void fetchToken.run(scope.trim());
  };
  const missingScope = isKnownError(fetchToken.error, 'OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE');
  const name = providerName(providerId);
  return (
    <li
      className="list-row list-row-block"
      data-testid={T.connectedAccountRow}
      data-provider={providerId}
      data-linked={account !== null}
    >
      <div className="row between">
        <div className="row">
          <span className="provider-badge">
            <ProviderIcon id={providerId} />
          </span>
          <div>
            <b>{name}</b>
            <div className="muted small">
              {account ? (account.email ?? `account ${account.accountId}`) : 'Not connected'}
            </div>
          </div>
          {account && <Badge tone="good">connected</Badge>}
        </div>
        {account === null && (
          <Button
            variant="primary"
            size="small"
            busy={link.busy}
            onClick={() => void link.run([])}
            testid={T.connectedAccountLink}
          >
            Connect {name}
          </Button>
        )}
      </div>
      {account && (
        <form className="token-form" onSubmit={onToken} noValidate>
          <Field label={`Get a ${name} access token for a scope`}>
            <input
              className="input"
              value={scope}
              onChange={(e) => setScope(e.target.value)}
              placeholder={exampleScopes[providerId] ?? 'scope'}
              spellCheck={false}
              data-testid={T.connectedAccountScope}
            />
          </Field>
          <Button type="submit" busy={fetchToken.busy} testid={T.connectedAccountGetToken}>
            Get token
          </Button>
        </form>
      )}
      {account && (
        <p className="muted small">
          Leave the scope empty for the scopes you already granted, or ask for a new one (e.g.{' '}
          {exampleScopes[providerId] ?? 'a provider scope'}).
        </p>
      )}
      {token && (
        <div className="token-result">
          <span className="muted small">Access token{token.scope ? ` for “${token.scope}”` : ''}:</span>
          <code className="wrap-anywhere" data-testid={T.connectedAccountToken}>
            {token.value}
          </code>
        </div>
      )}
      <ErrorText error={fetchToken.error ?? link.error}>
        {missingScope && (
          <div className="alert-actions">
            <Button
              size="small"
              variant="primary"
              busy={link.busy}
              onClick={() => void link.run(scope.trim().split(/\s+/).filter(Boolean))}
              testid={T.connectedAccountRelink}
            >
              Link again with this scope
            </Button>
          </div>
        )}
      </ErrorText>
    </li>
  );
}

/** The accounts the service lets this app get provider tokens for (`useConnectedAccounts`). */
function UsableAccounts() {
  const accounts = useConnectedAccounts();
  if (accounts.length === 0) return null;
  return (
    <div className="stack-sm">
      <p className="muted small">The app may call these accounts for you:</p>
      <ul className="list">
        {accounts.map((account) => (
          <li
            key={`${account.provider}:${account.providerAccountId}`}
            className="list-row"
            data-testid={T.connectedAccountUsable}
            data-provider={account.provider}
            data-account-id={account.providerAccountId}
          >
            <span className="row">
              <ProviderIcon id={account.provider} />
              <b>{providerName(account.provider)}</b>
              <span className="muted small">account {account.providerAccountId}</span>
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Provider accounts linked to this user, and provider access tokens for the app's own calls. */
export function ConnectedAccounts({ user }: { user: User }) {
  const project = useProject();
  const ids = [
    ...new Set([
      ...(project?.config.enabledOauthProviders ?? []).map((p) => p.id),
      ...user.oauthProviders.map((p) => p.id),
    ]),
  ];
  return (
    <Card
      title="Connected accounts"
      description="Link accounts at other services to sign in with them, and to let this app call them for you."
    >
      {ids.length === 0 ? (
        <Empty>This app has no sign-in providers.</Empty>
      ) : (
        <div className="stack">
          <ul className="list">
            {ids.map((id) => (
              <ProviderRow key={id} providerId={id} />
            ))}
          </ul>
          <UsableAccounts />
        </div>
      )}
    </Card>
  );
}
