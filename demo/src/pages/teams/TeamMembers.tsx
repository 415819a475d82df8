import type { TeamMember, User } from '../../../../client/index.js';
import { useBrokerClient, useQuery } from '../../../../client/react/index.js';
import { Alert, ErrorText } from '../../components/Alert.js';
import { Avatar } from '../../components/Avatar.js';
import { Button } from '../../components/Button.js';
import { Badge, Card, Empty, Loading } from '../../components/Card.js';
import { useAction } from '../../lib/useAction.js';
import { useLiveRefresh } from '../../lib/useLiveRefresh.js';
import { T } from '../../testids.js';

function MemberRow({
  member,
  isMe,
  canRemove,
  myEmail,
}: {
  member: TeamMember;
  isMe: boolean;
  canRemove: boolean;
  myEmail: string | null;
}) {
  const client = useBrokerClient();
  const remove = useAction(() => client.removeTeamMember(member.teamId, member.userId));
  return (
    <li className="list-row" data-testid={T.memberRow} data-user-id={member.userId}>
      <Avatar src={member.profileImageUrl} name={member.displayName} email={isMe ? myEmail : null} size={32} />
      <div className="list-main">
        <div className="row wrap">
          <b>{member.displayName ?? (isMe ? myEmail : null) ?? 'Unnamed member'}</b>
          {isMe && <Badge tone="accent">you</Badge>}
        </div>
        <ErrorText error={remove.error} />
      </div>
      {canRemove && !isMe && (
        <div className="list-actions">
          <Button
            size="small"
            variant="danger"
            busy={remove.busy}
            onClick={() => void remove.run()}
            testid={T.memberRemove}
          >
            Remove
          </Button>
        </div>
      )}
    </li>
  );
}

export function TeamMembers({
  teamId,
  user,
  canRead,
  canRemove,
}: {
  teamId: string;
  user: User;
  canRead: boolean;
  canRemove: boolean;
}) {
  const members = useQuery(canRead ? { kind: 'teamMembers', teamId } : null);
  // Others join (accepting an invitation) and leave without this tab doing anything.
  useLiveRefresh(canRead ? { kind: 'teamMembers', teamId } : null);
  const list = members.data ?? [];
  return (
    <Card
      title="Members"
      description={canRead && list.length > 0 ? `${list.length} ${list.length === 1 ? 'person' : 'people'}` : undefined}
    >
      {!canRead ? (
        <Alert kind="info">Your role in this team does not include seeing its members.</Alert>
      ) : members.isLoading ? (
        <Loading />
      ) : list.length === 0 ? (
        <Empty>No members.</Empty>
      ) : (
        <ul className="list">
          {list.map((member) => (
            <MemberRow
              key={member.userId}
              member={member}
              isMe={member.userId === user.id}
              canRemove={canRemove}
              myEmail={user.primaryEmail}
            />
          ))}
        </ul>
      )}
      <ErrorText error={canRead && members.data === undefined ? members.error : null} />
    </Card>
  );
}
