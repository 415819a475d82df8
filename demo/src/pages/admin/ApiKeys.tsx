import { useState, type FormEvent } from 'react';
import type { ApiKey, ApiKeyWithSecrets } from '../../../../client/index.js';
import { useApiKey, useBrokerClient, useQuery } from '../../../../client/react/index.js';
import { Alert, ErrorText, Success } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Badge, Card, Empty, Loading } from '../../components/Card.js';
import { Field } from '../../components/Field.js';
import { formatDate } from '../../lib/format.js';
import { useAction } from '../../lib/useAction.js';
import { T } from '../../testids.js';

const DAY = 24 * 3600 * 1000;
const lifetimes = [
  { label: '30 days', millis: 30 * DAY },
  { label: '90 days', millis: 90 * DAY },
  { label: '1 year', millis: 365 * DAY },
  { label: '10 years', millis: 3650 * DAY },
];

function CopyButton({ text }: { text: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      size="small"
      variant="ghost"
      onClick={() =>
        void navigator.clipboard.writeText(text).then(
          () => setCopied(true),
          () => setCopied(false),
        )
      }
    >
      {copied ? 'Copied' : 'Copy'}
    </Button>
  );
}

function Secrets({ keys, onDismiss }: { keys: ApiKeyWithSecrets; onDismiss: () => void }) {
  const rows = [
    ['Publishable client key', keys.publishableClientKey],
    ['Secret server key', keys.secretServerKey],
    ['Super secret admin key', keys.superSecretAdminKey],
  ].filter((r): r is [string, string] => typeof r[1] === 'string');
  return (
    <Card title={`New keys: ${keys.description}`} className="card-highlight" testid={T.apiKeySecrets}>
      <Alert kind="warning">
        Copy these now: they are shown only once. Keep secret keys on your server, never in a browser.
      </Alert>
      <dl className="secrets">
        {rows.map(([label, value]) => (
          <div key={label} className="secret-row">
            <dt>{label}</dt>
            <dd>
              <code className="wrap-anywhere" data-secret-kind={label}>
                {value}
              </code>
              <CopyButton text={value} />
            </dd>
          </div>
        ))}
      </dl>
      <Button variant="primary" onClick={onDismiss} testid={T.apiKeySecretsDismiss}>
        I have saved them
      </Button>
    </Card>
  );
}

/** One key read on its own (`useApiKey`), with its description editable (`adminUpdateApiKey`). */
function KeyDetail({ apiKeyId, projectId }: { apiKeyId: string; projectId: string }) {
  const client = useBrokerClient();
  const apiKey = useApiKey(apiKeyId, projectId);
  const [description, setDescription] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const save = useAction(async (text: string) => {
    await client.adminUpdateApiKey(apiKeyId, { description: text }, { projectId });
    setDescription(null);
    setSaved(true);
  });
  if (apiKey === null) return <Loading />;
  const value = description ?? apiKey.description;
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (value.trim() === '') return save.setError('Describe what the keys are for.');
    setSaved(false);
    void save.run(value.trim());
  };
  const kinds = [
    apiKey.publishableClientKey && 'publishable client key',
    apiKey.secretServerKey && 'secret server key',
    apiKey.superSecretAdminKey && 'super secret admin key',
  ].filter(Boolean);
  return (
    <div className="stack" data-testid={T.apiKeyDetail} data-key-id={apiKey.id}>
      <dl className="muted small">
        <div>
          Id <code>{apiKey.id}</code>
        </div>
        <div>Holds: {kinds.join(', ')}</div>
        <div>
          Created {formatDate(apiKey.createdAtMillis)}, expires {formatDate(apiKey.expiresAtMillis)}
        </div>
      </dl>
      <form className="inline-form" onSubmit={onSubmit} noValidate>
        <Field label="Description">
          <input
            className="input"
            value={value}
            onChange={(e) => (setDescription(e.target.value), setSaved(false))}
            data-testid={T.apiKeyDetailDescription}
          />
        </Field>
        <Button
          type="submit"
          busy={save.busy}
          disabled={value.trim() === apiKey.description}
          testid={T.apiKeyDetailSave}
        >
          Save
        </Button>
      </form>
      <ErrorText error={save.error} />
      {saved && <Success>Saved: every tab shows the new description.</Success>}
    </div>
  );
}

function KeyRow({ apiKey, projectId }: { apiKey: ApiKey; projectId: string }) {
  const client = useBrokerClient();
  const [open, setOpen] = useState(false);
  const revoke = useAction(() => client.adminRevokeApiKey(apiKey.id, { projectId }));
  const revoked = apiKey.manuallyRevokedAtMillis !== undefined;
  const expired = !revoked && apiKey.expiresAtMillis < Date.now();
  const parts = [
    apiKey.publishableClientKey && `pck_…${apiKey.publishableClientKey.lastFour}`,
    apiKey.secretServerKey && `ssk_…${apiKey.secretServerKey.lastFour}`,
    apiKey.superSecretAdminKey && `sak_…${apiKey.superSecretAdminKey.lastFour}`,
  ].filter(Boolean);
  return (
    <li
      className="list-row"
      data-testid={T.apiKeyRow}
      data-key-id={apiKey.id}
      data-state={revoked ? 'revoked' : expired ? 'expired' : 'active'}
    >
      <div className="list-main">
        <div className="row wrap">
          <b>{apiKey.description}</b>
          {revoked ? (
            <Badge tone="bad">revoked</Badge>
          ) : expired ? (
            <Badge tone="warn">expired</Badge>
          ) : (
            <Badge tone="good">active</Badge>
          )}
        </div>
        <div className="muted small">
          {parts.join(' · ')} · created {formatDate(apiKey.createdAtMillis)} ·{' '}
          {revoked
            ? `revoked ${formatDate(apiKey.manuallyRevokedAtMillis!)}`
            : `expires ${formatDate(apiKey.expiresAtMillis)}`}
        </div>
        <ErrorText error={revoke.error} />
        {open && <KeyDetail apiKeyId={apiKey.id} projectId={projectId} />}
      </div>
      <div className="list-actions">
        <Button
          size="small"
          variant="ghost"
          aria-expanded={open}
          onClick={() => setOpen(!open)}
          testid={T.apiKeyDetails}
        >
          {open ? 'Close' : 'Details'}
        </Button>
        {!revoked && (
          <Button
            size="small"
            variant="danger"
            busy={revoke.busy}
            onClick={() => void revoke.run()}
            testid={T.apiKeyRevoke}
          >
            Revoke
          </Button>
        )}
      </div>
    </li>
  );
}

export function ApiKeys({ projectId }: { projectId: string }) {
  const client = useBrokerClient();
  const keys = useQuery({ kind: 'admin.apiKeys', projectId });
  const [description, setDescription] = useState('');
  const [lifetime, setLifetime] = useState(lifetimes[2]!.millis);
  const [kinds, setKinds] = useState({ pck: true, ssk: true, sak: false });
  const [created, setCreated] = useState<ApiKeyWithSecrets | null>(null);
  const create = useAction(async () => {
    const result = await client.adminCreateApiKey(
      {
        description: description.trim(),
        expiresAtMillis: Date.now() + lifetime,
        hasPublishableClientKey: kinds.pck,
        hasSecretServerKey: kinds.ssk,
        hasSuperSecretAdminKey: kinds.sak,
      },
      { projectId },
    );
    setCreated(result);
    setDescription('');
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (description.trim() === '') return create.setError('Describe what the keys are for.');
    if (!kinds.pck && !kinds.ssk && !kinds.sak) return create.setError('Choose at least one kind of key.');
    void create.run();
  };
  const list = [...(keys.data ?? [])].sort((a, b) => b.createdAtMillis - a.createdAtMillis);
  return (
    <div className="stack">
      {created && <Secrets keys={created} onDismiss={() => setCreated(null)} />}
      <Card title="Create API keys" description="For your server (secret key) and your app (publishable key).">
        <form className="stack" onSubmit={onSubmit} data-testid={T.apiKeyCreateForm} noValidate>
          <div className="form-grid">
            <Field label="Description">
              <input
                className="input"
                value={description}
                onChange={(e) => setDescription(e.target.value)}
                placeholder="Production server"
                data-testid={T.apiKeyDescription}
              />
            </Field>
            <Field label="Expires after">
              <select className="input select" value={lifetime} onChange={(e) => setLifetime(Number(e.target.value))}>
                {lifetimes.map((l) => (
                  <option key={l.label} value={l.millis}>
                    {l.label}
                  </option>
                ))}
              </select>
            </Field>
          </div>
          <div className="row wrap">
            <label className="check">
              <input
                type="checkbox"
                checked={kinds.pck}
                onChange={(e) => setKinds({ ...kinds, pck: e.target.checked })}
              />{' '}
              Publishable client key
            </label>
            <label className="check">
              <input
                type="checkbox"
                checked={kinds.ssk}
                onChange={(e) => setKinds({ ...kinds, ssk: e.target.checked })}
              />{' '}
              Secret server key
            </label>
            <label className="check">
              <input
                type="checkbox"
                checked={kinds.sak}
                onChange={(e) => setKinds({ ...kinds, sak: e.target.checked })}
              />{' '}
              Super secret admin key
            </label>
          </div>
          <ErrorText error={create.error} />
          <div className="row">
            <Button type="submit" variant="primary" busy={create.busy} testid={T.apiKeyCreate}>
              Create keys
            </Button>
          </div>
        </form>
      </Card>
      <Card title="Keys">
        {keys.isLoading ? (
          <Loading />
        ) : list.length === 0 ? (
          <Empty>No API keys yet.</Empty>
        ) : (
          <ul className="list">
            {list.map((k) => (
              <KeyRow key={k.id} apiKey={k} projectId={projectId} />
            ))}
          </ul>
        )}
        <ErrorText error={keys.data === undefined ? keys.error : null} />
      </Card>
    </div>
  );
}
