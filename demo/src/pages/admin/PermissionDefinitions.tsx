import { useState, type FormEvent } from 'react';
import type { PermissionDefinition } from '../../../../client/index.js';
import { useBrokerClient, useQuery } from '../../../../client/react/index.js';
import { ErrorText, Success } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Badge, Card, Loading } from '../../components/Card.js';
import { Field } from '../../components/Field.js';
import { useAction } from '../../lib/useAction.js';
import { T } from '../../testids.js';

const isSystem = (id: string) => id.startsWith('$');

/** Checkboxes for the permissions a permission contains (never itself). */
function ContainsPicker({
  all,
  self,
  value,
  onChange,
}: {
  all: PermissionDefinition[];
  self: string | null;
  value: string[];
  onChange: (ids: string[]) => void;
}) {
  return (
    <div className="chips">
      {all
        .filter((d) => d.id !== self)
        .map((d) => (
          <label key={d.id} className={value.includes(d.id) ? 'chip is-on' : 'chip'}>
            <input
              type="checkbox"
              checked={value.includes(d.id)}
              onChange={(e) => onChange(e.target.checked ? [...value, d.id] : value.filter((x) => x !== d.id))}
              data-testid={T.permissionDefinitionContains}
              data-permission={d.id}
            />
            {d.id}
          </label>
        ))}
    </div>
  );
}

function DefinitionRow({
  definition,
  all,
  projectId,
}: {
  definition: PermissionDefinition;
  all: PermissionDefinition[];
  projectId: string;
}) {
  const client = useBrokerClient();
  const [editing, setEditing] = useState(false);
  const [contains, setContains] = useState(definition.containedPermissionIds);
  const [description, setDescription] = useState(definition.description ?? '');
  const save = useAction(async () => {
    await client.adminUpdatePermissionDefinition(
      definition.id,
      { description, containedPermissionIds: contains },
      { projectId },
    );
    setEditing(false);
  });
  const remove = useAction(() => client.adminDeletePermissionDefinition(definition.id, { projectId }));
  const system = isSystem(definition.id);
  return (
    <li className="list-row list-row-block" data-testid={T.permissionDefinitionRow} data-permission={definition.id}>
      <div className="row between">
        <div className="list-main">
          <div className="row wrap">
            <code className="perm-id">{definition.id}</code>
            {system && <Badge>system</Badge>}
          </div>
          <div className="muted small">{definition.description ?? 'No description'}</div>
          {definition.containedPermissionIds.length > 0 && (
            <div className="small">
              Contains:{' '}
              {definition.containedPermissionIds.map((id) => (
                <code key={id} className="var">
                  {id}
                </code>
              ))}
            </div>
          )}
        </div>
        {!system && !editing && (
          <div className="list-actions">
            <Button size="small" onClick={() => setEditing(true)} testid={T.permissionDefinitionEdit}>
              Edit
            </Button>
            <Button
              size="small"
              variant="danger"
              busy={remove.busy}
              onClick={() => void remove.run()}
              testid={T.permissionDefinitionDelete}
            >
              Delete
            </Button>
          </div>
        )}
      </div>
      {editing && (
        <div className="stack">
          <Field label="Description">
            <input className="input" value={description} onChange={(e) => setDescription(e.target.value)} />
          </Field>
          <Field label="Contains">
            <ContainsPicker all={all} self={definition.id} value={contains} onChange={setContains} />
          </Field>
          <div className="row">
            <Button
              variant="primary"
              size="small"
              busy={save.busy}
              onClick={() => void save.run()}
              testid={T.permissionDefinitionSave}
            >
              Save
            </Button>
            <Button
              variant="ghost"
              size="small"
              onClick={() => {
                setEditing(false);
                setContains(definition.containedPermissionIds);
                setDescription(definition.description ?? '');
              }}
            >
              Cancel
            </Button>
          </div>
        </div>
      )}
      <ErrorText error={save.error ?? remove.error} />
    </li>
  );
}

/** Team permissions of the project: roles are permissions that contain others. */
export function PermissionDefinitions({ projectId }: { projectId: string }) {
  const client = useBrokerClient();
  const definitions = useQuery({ kind: 'admin.permissionDefinitions', projectId });
  const all = definitions.data ?? [];
  const [id, setId] = useState('');
  const [description, setDescription] = useState('');
  const [contains, setContains] = useState<string[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [created, setCreated] = useState<string | null>(null);
  const create = useAction(async () => {
    const definition = await client.adminCreatePermissionDefinition(
      { id: id.trim(), description: description.trim(), containedPermissionIds: contains },
      { projectId },
    );
    setCreated(definition.id);
    setId('');
    setDescription('');
    setContains([]);
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setCreated(null);
    if (!/^[a-z0-9_:]+$/.test(id.trim())) {
      setProblem('Use lowercase letters, digits, “_” and “:” only, like read_reports or billing:admin.');
      return;
    }
    setProblem(null);
    void create.run();
  };
  const sorted = [...all].sort((a, b) => Number(isSystem(a.id)) - Number(isSystem(b.id)) || a.id.localeCompare(b.id));
  return (
    <div className="stack">
      <Card
        title="New permission"
        description="Give it to members through a role, or make it a role by letting it contain others."
      >
        <form className="stack" onSubmit={onSubmit} data-testid={T.permissionDefinitionForm} noValidate>
          <div className="form-grid">
            <Field label="Id" problem={problem}>
              <input
                className="input mono"
                value={id}
                onChange={(e) => setId(e.target.value)}
                placeholder="read_reports"
                spellCheck={false}
                data-testid={T.permissionDefinitionId}
              />
            </Field>
            <Field label="Description">
              <input
                className="input"
                value={description}
                onChange={(e) => setDescription(e.target.value)}
                placeholder="Read the monthly reports"
                data-testid={T.permissionDefinitionDescription}
              />
            </Field>
          </div>
          <Field label="Contains (optional)">
            <ContainsPicker all={all} self={null} value={contains} onChange={setContains} />
          </Field>
          <ErrorText error={create.error} />
          {created && <Success>Created {created}.</Success>}
          <div className="row">
            <Button type="submit" variant="primary" busy={create.busy} testid={T.permissionDefinitionCreate}>
              Create permission
            </Button>
          </div>
        </form>
      </Card>
      <Card title="Permissions">
        {definitions.isLoading ? (
          <Loading />
        ) : (
          <ul className="list">
            {sorted.map((d) => (
              <DefinitionRow
                key={`${d.id}:${d.containedPermissionIds.join(',')}:${d.description ?? ''}`}
                definition={d}
                all={all}
                projectId={projectId}
              />
            ))}
          </ul>
        )}
        <ErrorText error={definitions.data === undefined ? definitions.error : null} />
      </Card>
    </div>
  );
}
