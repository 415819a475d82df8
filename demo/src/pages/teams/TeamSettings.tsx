import { useState, type FormEvent } from 'react';
import type { Team } from '../../../../client/index.js';
import { useBrokerClient } from '../../../../client/react/index.js';
import { ErrorText, Success } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Card } from '../../components/Card.js';
import { ConfirmedDelete } from '../../components/ConfirmedDelete.js';
import { Field } from '../../components/Field.js';
import { useAction } from '../../lib/useAction.js';
import { navigate } from '../../router.js';
import { T } from '../../testids.js';

export function TeamSettings({ team, canUpdate, canDelete }: { team: Team; canUpdate: boolean; canDelete: boolean }) {
  const client = useBrokerClient();
  const [name, setName] = useState(team.displayName);
  const [renamed, setRenamed] = useState(false);
  const rename = useAction(async (displayName: string) => {
    await client.updateTeam(team.id, { displayName });
    setRenamed(true);
  });
  const remove = useAction(async () => {
    await client.deleteTeam(team.id);
    navigate('/teams', { replace: true });
  });
  const leave = useAction(async () => {
    await client.leaveTeam(team.id);
    navigate('/teams', { replace: true });
  });
  const onRename = (event: FormEvent) => {
    event.preventDefault();
    const displayName = name.trim();
    if (displayName === '') {
      rename.setError('Give the team a name.');
      return;
    }
    setRenamed(false);
    void rename.run(displayName);
  };
  return (
    <Card title="Team settings">
      <div className="stack">
        {canUpdate && (
          <form className="inline-form" onSubmit={onRename} noValidate>
            <Field label="Team name">
              <input
                className="input"
                value={name}
                onChange={(e) => (setName(e.target.value), setRenamed(false))}
                data-testid={T.teamRenameInput}
              />
            </Field>
            <Button
              type="submit"
              busy={rename.busy}
              disabled={name.trim() === team.displayName}
              testid={T.teamRenameSubmit}
            >
              Rename
            </Button>
          </form>
        )}
        <ErrorText error={rename.error} />
        {renamed && <Success>The team is now called {team.displayName}.</Success>}
        <div className="danger-zone">
          <div>
            <b>Leave the team</b>
            <p className="muted small">You lose access until someone invites you again.</p>
          </div>
          <Button variant="danger" size="small" busy={leave.busy} onClick={() => void leave.run()} testid={T.teamLeave}>
            Leave team
          </Button>
        </div>
        <ErrorText error={leave.error} />
        {canDelete && (
          <ConfirmedDelete
            title="Delete the team"
            description="Removes the team and every membership."
            question={`Delete ${team.displayName} for every member? This cannot be undone.`}
            label="Delete team"
            busy={remove.busy}
            onConfirm={() => void remove.run()}
            testid={T.teamDelete}
            confirmTestid={T.teamDeleteConfirm}
          />
        )}
        <ErrorText error={remove.error} />
      </div>
    </Card>
  );
}
