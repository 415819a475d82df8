import { useState, type FormEvent } from 'react';
import { useBrokerClient } from '../../../../client/react/index.js';
import { ErrorText } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Field } from '../../components/Field.js';
import { useAction } from '../../lib/useAction.js';
import { T } from '../../testids.js';

/** "New project": a name, then `adminCreateProject`; the admin area switches to it. */
export function NewProject({ onCreated }: { onCreated: (projectId: string) => void }) {
  const client = useBrokerClient();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const create = useAction(async (displayName: string) => {
    const project = await client.adminCreateProject({
      displayName,
      config: { credentialEnabled: true, allowLocalhost: true },
    });
    setOpen(false);
    setName('');
    onCreated(project.id);
  });
  if (!open) {
    return (
      <Button onClick={() => setOpen(true)} testid={T.adminProjectCreate}>
        New project
      </Button>
    );
  }
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim() === '') return create.setError('Give the project a name.');
    void create.run(name.trim());
  };
  return (
    <form className="inline-form" onSubmit={onSubmit} noValidate>
      <Field label="New project's name">
        <input
          className="input"
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="My side project"
          autoFocus
          data-testid={T.adminProjectCreateName}
        />
      </Field>
      <Button type="submit" variant="primary" busy={create.busy} testid={T.adminProjectCreateSubmit}>
        Create
      </Button>
      <Button variant="ghost" onClick={() => (setOpen(false), create.reset())} disabled={create.busy}>
        Cancel
      </Button>
      <ErrorText error={create.error} />
    </form>
  );
}
