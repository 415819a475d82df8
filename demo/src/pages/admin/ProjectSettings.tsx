import { useState, type FormEvent } from 'react';
import type { AdminProjectModel } from '../../../../client/index.js';
import { useBrokerClient, useQuery } from '../../../../client/react/index.js';
import { ErrorText, Success } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Card, Empty, Loading } from '../../components/Card.js';
import { ConfirmedDelete } from '../../components/ConfirmedDelete.js';
import { Field, Toggle } from '../../components/Field.js';
import { demoConfig } from '../../lib/config.js';
import { formatDate } from '../../lib/format.js';
import { useAction } from '../../lib/useAction.js';
import { T } from '../../testids.js';

type Flags =
  | 'signUpEnabled'
  | 'credentialEnabled'
  | 'magicLinkEnabled'
  | 'passkeyEnabled'
  | 'clientTeamCreationEnabled'
  | 'clientUserDeletionEnabled'
  | 'allowLocalhost'
  | 'allowUserApiKeys'
  | 'allowTeamApiKeys';

const toggles: Array<{ flag: Flags; label: string; description: string; testid?: string }> = [
  {
    flag: 'signUpEnabled',
    label: 'Sign-up',
    description: 'New people may create accounts.',
    testid: T.adminToggleSignUp,
  },
  { flag: 'credentialEnabled', label: 'Password sign-in', description: 'E-mail and password.' },
  {
    flag: 'magicLinkEnabled',
    label: 'Magic link',
    description: 'Sign in with a code or link sent by e-mail.',
    testid: T.adminToggleMagicLink,
  },
  {
    flag: 'passkeyEnabled',
    label: 'Passkeys',
    description: 'Sign in with a device passkey.',
    testid: T.adminTogglePasskey,
  },
  { flag: 'clientTeamCreationEnabled', label: 'Team creation', description: 'Signed-in people may create teams.' },
  { flag: 'clientUserDeletionEnabled', label: 'Account deletion', description: 'People may delete their own account.' },
  {
    flag: 'allowLocalhost',
    label: 'Allow localhost',
    description: 'Trust any localhost address for callbacks (development).',
  },
  { flag: 'allowUserApiKeys', label: 'User API keys', description: 'People may make API keys of their own.' },
  {
    flag: 'allowTeamApiKeys',
    label: 'Team API keys',
    description: 'Team members with $manage_api_keys may make keys for the team.',
  },
];

function domainProblem(value: string, existing: string[]): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Type a full address, like https://app.example.com.';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'The address must start with https:// or http://.';
  if (existing.includes(url.origin)) return 'This domain is already trusted.';
  return null;
}

function SettingsForm({ project }: { project: AdminProjectModel }) {
  const client = useBrokerClient();
  const [name, setName] = useState(project.displayName);
  const [description, setDescription] = useState(project.description);
  const [flags, setFlags] = useState<Record<Flags, boolean>>(
    () => Object.fromEntries(toggles.map((t) => [t.flag, project.config[t.flag]])) as Record<Flags, boolean>,
  );
  const [domains, setDomains] = useState(
    project.config.domains.map((d) => ({ domain: d.domain, handlerPath: d.handlerPath })),
  );
  const [newDomain, setNewDomain] = useState('');
  const [domainError, setDomainError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const save = useAction(async () => {
    await client.adminUpdateProject(
      {
        displayName: name.trim(),
        // Always sent: the service resets a missing description to "".
        description,
        config: {
          ...Object.fromEntries(toggles.map((t) => [t.flag, flags[t.flag]])),
          domains,
        },
      },
      { projectId: project.id },
    );
    setSaved(true);
  });
  const changed = () => setSaved(false);
  const addDomain = () => {
    const value = newDomain.trim().replace(/\/+$/, '');
    const problem = domainProblem(
      value,
      domains.map((d) => d.domain),
    );
    setDomainError(problem);
    if (problem) return;
    setDomains([...domains, { domain: new URL(value).origin, handlerPath: '/handler' }]);
    setNewDomain('');
    changed();
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim() === '') {
      save.setError('The project needs a name.');
      return;
    }
    void save.run();
  };
  return (
    <form className="stack" onSubmit={onSubmit} noValidate>
      <Card title="Project" description={`Created ${formatDate(project.createdAtMillis)} · id ${project.id}`}>
        <div className="stack">
          <Field label="Display name">
            <input
              className="input"
              value={name}
              onChange={(e) => (setName(e.target.value), changed())}
              data-testid={T.adminProjectName}
            />
          </Field>
          <Field label="Description">
            <textarea
              className="input"
              rows={2}
              value={description}
              onChange={(e) => (setDescription(e.target.value), changed())}
              data-testid={T.adminProjectDescription}
            />
          </Field>
        </div>
      </Card>
      <Card title="Sign-in methods and features">
        <div className="toggle-grid">
          {toggles.map((t) => (
            <Toggle
              key={t.flag}
              label={t.label}
              description={t.description}
              checked={flags[t.flag]}
              onChange={(checked) => (setFlags({ ...flags, [t.flag]: checked }), changed())}
              {...(t.testid === undefined ? {} : { testid: t.testid })}
            />
          ))}
        </div>
      </Card>
      <Card
        title="Trusted domains"
        description="E-mail links and sign-in redirects may only point to these addresses (and localhost when allowed)."
      >
        {domains.length === 0 ? (
          <Empty>No trusted domains.</Empty>
        ) : (
          <ul className="list compact">
            {domains.map((d) => (
              <li key={d.domain} className="list-row" data-testid={T.adminDomainRow} data-domain={d.domain}>
                <span className="list-main">
                  <code className="truncate">{d.domain}</code>
                </span>
                <span className="muted small">handler {d.handlerPath}</span>
                <Button
                  size="small"
                  variant="ghost"
                  onClick={() => (setDomains(domains.filter((x) => x.domain !== d.domain)), changed())}
                  testid={T.adminDomainRemove}
                >
                  Remove
                </Button>
              </li>
            ))}
          </ul>
        )}
        <div className="inline-form">
          <Field label="Add a domain" problem={domainError}>
            <input
              className="input"
              value={newDomain}
              onChange={(e) => setNewDomain(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') {
                  e.preventDefault();
                  addDomain();
                }
              }}
              placeholder="https://app.example.com"
              data-testid={T.adminDomainInput}
            />
          </Field>
          <Button onClick={addDomain} testid={T.adminDomainAdd}>
            Add
          </Button>
        </div>
      </Card>
      <div className="sticky-actions">
        <ErrorText error={save.error} />
        {saved && <Success>Saved. Every tab sees the new settings.</Success>}
        <Button type="submit" variant="primary" busy={save.busy} testid={T.adminSettingsSave}>
          Save settings
        </Button>
      </div>
    </form>
  );
}

/**
 * Deleting a project for good (`adminDeleteProject`). The demo's own project is kept: the demo runs
 * on it, and deleting it would sign everyone out of a project that no longer exists.
 */
function DeleteProject({ project, onDeleted }: { project: AdminProjectModel; onDeleted: () => void }) {
  const client = useBrokerClient();
  const remove = useAction(async () => {
    await client.adminDeleteProject({ projectId: project.id });
    onDeleted();
  });
  const isDemo = project.id === demoConfig().projectId;
  return (
    <Card tone="danger">
      <ConfirmedDelete
        title="Delete the project"
        description={
          isDemo
            ? 'This is the project the demo runs on, so it cannot be deleted here. Create another project to try deleting one.'
            : 'Removes the project, its users, keys and settings for good.'
        }
        question={`Delete ${project.displayName}, its users, keys and settings? This cannot be undone.`}
        label="Delete project"
        busy={remove.busy}
        disabled={isDemo}
        onConfirm={() => void remove.run()}
        testid={T.adminProjectDelete}
        confirmTestid={T.adminProjectDeleteConfirm}
      />
      <ErrorText error={remove.error} />
    </Card>
  );
}

export function ProjectSettings({ projectId, onDeleted }: { projectId: string; onDeleted: () => void }) {
  const project = useQuery({ kind: 'admin.project', projectId });
  if (project.data === undefined) return project.error ? <ErrorText error={project.error} /> : <Loading />;
  return (
    <div className="stack">
      <SettingsForm key={project.data.id} project={project.data} />
      <DeleteProject project={project.data} onDeleted={onDeleted} />
    </div>
  );
}
