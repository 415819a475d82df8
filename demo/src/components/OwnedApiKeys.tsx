/**
 * The parts of a list of API keys a user or a team holds (account settings, a team's page): a form for a new one, the
 * new key shown whole once, and a row per key with its last four characters.
 */
import { useState, type FormEvent } from 'react';
import type { UserApiKeyModel } from '../../../client/index.js';
import { Alert, ErrorText } from './Alert.js';
import { Button } from './Button.js';
import { Badge, Card, Empty } from './Card.js';
import { Field } from './Field.js';
import { formatDate } from '../lib/format.js';
import { useAction } from '../lib/useAction.js';
import { T } from '../testids.js';

const DAY = 24 * 3600 * 1000;

/** What a row shows of a user's or a team's key. */
export type OwnedKey = Pick<
  UserApiKeyModel,
  'id' | 'description' | 'isPublic' | 'createdAtMillis' | 'expiresAtMillis' | 'manuallyRevokedAtMillis' | 'value'
>;

/** A key's state as its row shows it. */
function keyState(key: OwnedKey): string {
  if (key.manuallyRevokedAtMillis !== undefined) return 'revoked';
  return key.expiresAtMillis !== undefined && key.expiresAtMillis < Date.now() ? 'expired' : 'active';
}

/** The new key, whole, this once. */
function NewKey({ value, onDismiss }: { value: string; onDismiss: () => void }) {
  return (
    <Card title="Your new key" className="card-highlight" testid={T.ownedApiKeyValue}>
      <Alert kind="warning">Copy it now: it is shown only once. Every list shows its last four characters.</Alert>
      <code className="wrap-anywhere" data-testid={T.ownedApiKeyValueText}>
        {value}
      </code>
      <Button variant="primary" onClick={onDismiss} testid={T.ownedApiKeyValueDismiss}>
        I have saved it
      </Button>
    </Card>
  );
}

/** One key: what it is for, its last four characters, when it stops working; revocable while active. */
function KeyRow({ apiKey, revoke }: { apiKey: OwnedKey; revoke: () => Promise<unknown> }) {
  const action = useAction(revoke);
  const state = keyState(apiKey);
  return (
    <li className="list-row" data-testid={T.ownedApiKeyRow} data-key-id={apiKey.id} data-state={state}>
      <div className="list-main">
        <div className="row wrap">
          <b>{apiKey.description}</b>
          <Badge tone={state === 'active' ? 'good' : state === 'expired' ? 'warn' : 'bad'}>{state}</Badge>
        </div>
        <div className="muted small">
          {apiKey.isPublic ? 'pk' : 'sk'}_…{apiKey.value.lastFour} · made {formatDate(apiKey.createdAtMillis)} ·{' '}
          {apiKey.expiresAtMillis === undefined ? 'never expires' : `expires ${formatDate(apiKey.expiresAtMillis)}`}
        </div>
        <ErrorText error={action.error} />
      </div>
      {state === 'active' && (
        <div className="list-actions">
          <Button
            size="small"
            variant="danger"
            busy={action.busy}
            onClick={() => void action.run()}
            testid={T.ownedApiKeyRevoke}
          >
            Revoke
          </Button>
        </div>
      )}
    </li>
  );
}

/** What a new key is for and how long it lasts. */
function NewKeyForm({ create }: { create: (description: string, expiresAtMillis: number | null) => Promise<string> }) {
  const [description, setDescription] = useState('');
  const [days, setDays] = useState('90');
  const [made, setMade] = useState<string | null>(null);
  const action = useAction(async (text: string, lifetime: string) => {
    setMade(await create(text, lifetime === 'never' ? null : Date.now() + Number(lifetime) * DAY));
    setDescription('');
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (description.trim() === '') return action.setError('Say what the key is for.');
    void action.run(description.trim(), days);
  };
  return (
    <div className="stack">
      {made !== null && <NewKey value={made} onDismiss={() => setMade(null)} />}
      <form className="inline-form" onSubmit={onSubmit} data-testid={T.ownedApiKeyForm} noValidate>
        <Field label="What is it for?">
          <input
            className="input"
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            placeholder="CI deploys"
            data-testid={T.ownedApiKeyDescription}
          />
        </Field>
        <Field label="Lasts">
          <select className="input" value={days} onChange={(e) => setDays(e.target.value)}>
            <option value="30">30 days</option>
            <option value="90">90 days</option>
            <option value="365">1 year</option>
            <option value="never">Never expires</option>
          </select>
        </Field>
        <Button type="submit" variant="primary" busy={action.busy} testid={T.ownedApiKeyCreate}>
          New key
        </Button>
      </form>
      <ErrorText error={action.error} />
    </div>
  );
}

/** A list of keys with its form: `keys` from `useUserApiKeys` or `useTeamApiKeys`, the actions of the client. */
export function OwnedApiKeyList({
  keys,
  create,
  revoke,
}: {
  keys: OwnedKey[];
  create: (description: string, expiresAtMillis: number | null) => Promise<string>;
  revoke: (apiKeyId: string) => Promise<unknown>;
}) {
  return (
    <div className="stack">
      <NewKeyForm create={create} />
      {keys.length === 0 ? (
        <Empty>No keys yet.</Empty>
      ) : (
        <ul className="list">
          {keys.map((key) => (
            <KeyRow key={key.id} apiKey={key} revoke={() => revoke(key.id)} />
          ))}
        </ul>
      )}
    </div>
  );
}
