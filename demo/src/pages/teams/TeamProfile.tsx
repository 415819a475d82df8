import { useState, type FormEvent } from 'react';
import type { User } from '../../../../client/index.js';
import { useBrokerClient, useTeamProfile } from '../../../../client/react/index.js';
import { ErrorText, Success } from '../../components/Alert.js';
import { Avatar } from '../../components/Avatar.js';
import { Button } from '../../components/Button.js';
import { Card, Loading } from '../../components/Card.js';
import { Field } from '../../components/Field.js';
import { useAction } from '../../lib/useAction.js';
import { T } from '../../testids.js';

/**
 * How the signed-in person appears in this team (`useTeamProfile`, `/team-member-profiles/{team}/me`):
 * readable by any member, without the permission to see the others.
 */
export function TeamProfile({ teamId, user }: { teamId: string; user: User }) {
  const client = useBrokerClient();
  const profile = useTeamProfile(teamId);
  const [name, setName] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const save = useAction(async (displayName: string) => {
    await client.updateTeamProfile(teamId, { displayName });
    setName(null);
    setSaved(true);
  });
  if (profile === null) return <Loading />;
  const shown = profile.displayName ?? user.displayName ?? user.primaryEmail ?? 'you';
  const value = name ?? profile.displayName ?? '';
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (value.trim() === '') return save.setError('Type the name this team should see.');
    setSaved(false);
    void save.run(value.trim());
  };
  return (
    <Card
      title="Your profile in this team"
      description="The name and picture this team's members see. Other teams see your account's."
    >
      <div className="stack">
        <div className="row">
          <Avatar src={profile.profileImageUrl} name={profile.displayName} email={user.primaryEmail} size={32} />
          <b data-testid={T.teamProfileName}>{shown}</b>
        </div>
        <form className="inline-form" onSubmit={onSubmit} noValidate>
          <Field label="Name in this team">
            <input
              className="input"
              value={value}
              onChange={(e) => (setName(e.target.value), setSaved(false))}
              placeholder={user.displayName ?? ''}
              data-testid={T.teamProfileInput}
            />
          </Field>
          <Button
            type="submit"
            busy={save.busy}
            disabled={value.trim() === (profile.displayName ?? '')}
            testid={T.teamProfileSave}
          >
            Save
          </Button>
        </form>
        <ErrorText error={save.error} />
        {saved && <Success>Saved. Every tab and every member sees it.</Success>}
      </div>
    </Card>
  );
}
