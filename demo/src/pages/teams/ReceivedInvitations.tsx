import type { TeamInvitationModel } from '../../../../client/index.js';
import { useBrokerClient, useReceivedTeamInvitations } from '../../../../client/react/index.js';
import { ErrorText } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Card } from '../../components/Card.js';
import { formatDate } from '../../lib/format.js';
import { useAction } from '../../lib/useAction.js';
import { T } from '../../testids.js';

function InvitationRow({ invitation }: { invitation: TeamInvitationModel }) {
  const client = useBrokerClient();
  const accept = useAction(() => client.acceptTeamInvitationById(invitation.id));
  return (
    <li className="list-row" data-testid={T.receivedInvitationRow} data-team-name={invitation.teamDisplayName}>
      <div className="list-main">
        <b>{invitation.teamDisplayName}</b>
        <div className="muted small">
          Sent to {invitation.recipientEmail} · until {formatDate(invitation.expiresAtMillis)}
        </div>
        <ErrorText error={accept.error} />
      </div>
      <div className="list-actions">
        <Button
          size="small"
          variant="primary"
          busy={accept.busy}
          onClick={() => void accept.run()}
          testid={T.receivedInvitationAccept}
        >
          Join
        </Button>
      </div>
    </li>
  );
}

/** Invitations sent to the person's verified addresses (`useReceivedTeamInvitations`), joined without the e-mail. */
export function ReceivedInvitations() {
  const invitations = useReceivedTeamInvitations();
  if (invitations.length === 0) return null;
  return (
    <Card title="Invitations for you" description="Teams that invited one of your verified e-mail addresses.">
      <ul className="list">
        {invitations.map((invitation) => (
          <InvitationRow key={invitation.id} invitation={invitation} />
        ))}
      </ul>
    </Card>
  );
}
