import { useState, type FormEvent } from 'react';
import { useBrokerClient, useProject, useQuery } from '../../../../client/react/index.js';
import { ErrorText } from '../../components/Alert.js';
import { Avatar } from '../../components/Avatar.js';
import { Button } from '../../components/Button.js';
import { Badge, Card, Empty, Loading, PageHeader } from '../../components/Card.js';
import { Field } from '../../components/Field.js';
import { RequireUser } from '../../components/RequireUser.js';
import { useAction } from '../../lib/useAction.js';
import { Link, navigate } from '../../router.js';
import { T } from '../../testids.js';
import { ReceivedInvitations } from './ReceivedInvitations.js';

function CreateTeam() {
  const client = useBrokerClient();
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const create = useAction(async (displayName: string) => {
    const team = await client.createTeam({ displayName });
    setName('');
    navigate(`/teams/${team.id}`);
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const displayName = name.trim();
    if (displayName === '') {
      setProblem('Give the team a name.');
      return;
    }
    setProblem(null);
    void create.run(displayName);
  };
  return (
    <form className="stack" onSubmit={onSubmit} data-testid={T.teamCreateForm} noValidate>
      <div className="inline-form">
        <Field label="New team" problem={problem}>
          <input
            className="input"
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="Design team"
            data-testid={T.teamCreateName}
          />
        </Field>
        <Button type="submit" variant="primary" busy={create.busy} testid={T.teamCreateSubmit}>
          Create team
        </Button>
      </div>
      <ErrorText error={create.error} />
    </form>
  );
}

/** `/teams`: the teams the person belongs to, and a new one. */
export function Teams() {
  const project = useProject();
  const teams = useQuery({ kind: 'teams' });
  return (
    <RequireUser what="your teams">
      {(user) => (
        <div className="stack-lg">
          <PageHeader title="Teams" lead="Work together: invite people by e-mail and decide what each member may do." />
          {project?.config.clientTeamCreationEnabled && (
            <Card>
              <CreateTeam />
            </Card>
          )}
          <ReceivedInvitations />
          <Card title="Your teams">
            {teams.isLoading ? (
              <Loading />
            ) : (teams.data ?? []).length === 0 ? (
              <Empty>You are not in any team yet. Create one, or accept an invitation from your e-mail.</Empty>
            ) : (
              <ul className="list">
                {(teams.data ?? []).map((team) => (
                  <li
                    key={team.id}
                    className="list-row"
                    data-testid={T.teamRow}
                    data-team-id={team.id}
                    data-team-name={team.displayName}
                  >
                    <Link to={`/teams/${team.id}`} className="row-link">
                      <Avatar src={team.profileImageUrl} name={team.displayName} size={40} />
                      <span className="list-main">
                        <b>{team.displayName}</b>
                        {user.selectedTeamId === team.id && (
                          <>
                            {' '}
                            <Badge tone="accent">current</Badge>
                          </>
                        )}
                      </span>
                      <span className="chevron" aria-hidden="true">
                        →
                      </span>
                    </Link>
                  </li>
                ))}
              </ul>
            )}
            <ErrorText error={teams.data === undefined ? teams.error : null} />
          </Card>
        </div>
      )}
    </RequireUser>
  );
}
