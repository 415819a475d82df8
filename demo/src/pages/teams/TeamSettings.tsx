import { useState, type FormEvent } from 'react';
import type { Team } from '../../../../client/index.js';
import { useBrokerClient } from '../../../../client/react/index.js';
import { ErrorText, Success } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Card } from '../../components/Card.js';
import { Field } from '../../components/Field.js';
import { useAction } from '../../lib/useAction.js';
import { navigate } from '../../router.js';
import { T } from '../../testids.js';

export function TeamSettings({ team, canUpdate, canDelete }: { team: Team; canUpdate: boolean; canDelete: boolean }) {
  const client = useBrokerClient();
  const [name, setName] = useState(team.displayName);
  const [renamed, setRenamed] = useState(false);
  const [confirming, setConfirming] = useState(false);
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
              <input className="input" value={name} onChange={(e) => (setName(e.target.value), setRenamed(false))} data-testid={T.teamRenameInput} />
            </Field>
            <Button type="submit" busy={rename.busy} disabled={name.trim() === team.displayName} testid={T.teamRenameSubmit}>
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
          <div className="danger-zone">
            <div>
              <b>Delete the team</b>
              <p className="muted small">{confirming ? `Delete ${team.displayName} for every member? This cannot be undone.` : 'Removes the team and every membership.'}</p>
            </div>
            {confirming ? (
              <div className="row">
                <Button size="small" variant="ghost" onClick={() => setConfirming(false)} disabled={remove.busy}>
                  Keep it
                </Button>
                <Button size="small" variant="danger" busy={remove.busy} onClick={() => void remove.run()} testid={T.teamDeleteConfirm}>
                  Yes, delete
                </Button>
              </div>
            ) : (
              <Button size="small" variant="danger" onClick={() => setConfirming(true)} testid={T.teamDelete}>
                Delete team
              </Button>
            )}
          </div>
        )}
        <ErrorText error={remove.error} />
      </div>
    </Card>
  );
}
