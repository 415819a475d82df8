import type { TeamPermissionModel } from '../../../../client/index.js';
import { Card, Empty } from '../../components/Card.js';
import { T } from '../../testids.js';

const meanings: Record<string, string> = {
  $read_members: 'See who is in the team.',
  $invite_members: 'Invite people by e-mail and manage pending invitations.',
  $remove_members: 'Remove other members from the team.',
  $update_team: 'Rename the team and change its picture.',
  $delete_team: 'Delete the team for everyone.',
  admin: 'The team admin role. It allows what the permissions it contains allow.',
  member: 'The role every member gets. It allows what the permissions it contains allow.',
};

/** The person's permissions in the team (including those reached through roles), in words. */
export function TeamPermissions({ permissions }: { permissions: TeamPermissionModel[] }) {
  const sorted = [...permissions].sort(
    (a, b) => Number(a.id.startsWith('$')) - Number(b.id.startsWith('$')) || a.id.localeCompare(b.id),
  );
  return (
    <Card title="Your permissions" description="What you may do in this team.">
      {sorted.length === 0 ? (
        <Empty>You have no permissions in this team.</Empty>
      ) : (
        <ul className="list compact">
          {sorted.map((p) => (
            <li key={p.id} className="list-row" data-testid={T.permissionRow} data-permission={p.id}>
              <code className="perm-id">{p.id}</code>
              <span className="muted small">{meanings[p.id] ?? 'A permission defined by this app.'}</span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
