import type { User } from '../../../../client/index.js';
import { usePermissions, useQuery, useUser } from '../../../../client/react/index.js';
import { ErrorText } from '../../components/Alert.js';
import { Avatar } from '../../components/Avatar.js';
import { Card, Loading } from '../../components/Card.js';
import { Link } from '../../router.js';
import { T } from '../../testids.js';
import { TeamApiKeys } from './TeamApiKeys.js';
import { TeamInvitations } from './TeamInvitations.js';
import { TeamMembers } from './TeamMembers.js';
import { TeamPermissions } from './TeamPermissions.js';
import { TeamProfile } from './TeamProfile.js';
import { TeamSettings } from './TeamSettings.js';

function TeamView({ teamId, user }: { teamId: string; user: User }) {
  const team = useQuery({ kind: 'team', teamId });
  const permissions = usePermissions(teamId);
  const can = (id: string) => permissions.some((p) => p.id === id);
  if (team.data === undefined) {
    return team.error ? (
      <Card title="Team not available">
        <ErrorText error={team.error} />
        <Link className="btn btn-secondary" to="/teams">
          Back to your teams
        </Link>
      </Card>
    ) : (
      <Loading />
    );
  }
  return (
    <div className="stack-lg">
      <div className="team-header">
        <Link to="/teams" className="back-link">
          ← Teams
        </Link>
        <div className="row">
          <Avatar src={team.data.profileImageUrl} name={team.data.displayName} size={64} />
          <h1 data-testid={T.teamName}>{team.data.displayName}</h1>
        </div>
      </div>
      <div className="two-columns">
        <div className="stack">
          <TeamMembers teamId={teamId} user={user} canRead={can('$read_members')} canRemove={can('$remove_members')} />
          {can('$invite_members') && <TeamInvitations teamId={teamId} canList={can('$read_members')} />}
        </div>
        <div className="stack">
          <TeamProfile teamId={teamId} user={user} />
          <TeamPermissions permissions={permissions} />
          <TeamSettings team={team.data} canUpdate={can('$update_team')} canDelete={can('$delete_team')} />
          <TeamApiKeys teamId={teamId} canManage={can('$manage_api_keys')} />
        </div>
      </div>
    </div>
  );
}

/**
 * `/teams/:teamId`: members, invitations, permissions and settings of one team. A link to a team
 * opened signed out goes to the sign-in page (through the demo's router) and comes back here.
 */
export function TeamPage({ teamId }: { teamId: string }) {
  const user = useUser({ or: 'redirect' });
  return <TeamView teamId={teamId} user={user} />;
}
