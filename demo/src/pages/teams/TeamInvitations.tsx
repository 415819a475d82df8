import { useState, type FormEvent } from 'react';
import type { TeamInvitationModel } from '../../../../client/index.js';
import { useBrokerClient, useQuery } from '../../../../client/react/index.js';
import { ErrorText, Success } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Card, Empty, Loading } from '../../components/Card.js';
import { Field } from '../../components/Field.js';
import { mailboxUrl } from '../../lib/config.js';
import { formatRelative } from '../../lib/format.js';
import { useAction } from '../../lib/useAction.js';
import { useLiveRefresh } from '../../lib/useLiveRefresh.js';
import { T } from '../../testids.js';

function InvitationRow({ invitation }: { invitation: TeamInvitationModel }) {
  const client = useBrokerClient();
  const revoke = useAction(() =>
    client.revokeTeamInvitation({ teamId: invitation.teamId, invitationId: invitation.id }),
  );
  return (
    <li
      className="list-row"
      data-testid={T.invitationRow}
      data-email={invitation.recipientEmail}
      data-invitation-id={invitation.id}
    >
      <div className="list-main">
        <b>{invitation.recipientEmail}</b>
        <div className="muted small">Expires {formatRelative(invitation.expiresAtMillis)}</div>
        <ErrorText error={revoke.error} />
      </div>
      <div className="list-actions">
        <Button
          size="small"
          variant="danger"
          busy={revoke.busy}
          onClick={() => void revoke.run()}
          testid={T.invitationRevoke}
        >
          Revoke
        </Button>
      </div>
    </li>
  );
}

/** Invite by e-mail (the link opens the team-invitation handler page) and manage pending invitations. */
export function TeamInvitations({ teamId, canList }: { teamId: string; canList: boolean }) {
  const client = useBrokerClient();
  const invitations = useQuery(canList ? { kind: 'teamInvitations', teamId } : null);
  // An accepted invitation leaves the list when the invitee accepts, elsewhere.
  useLiveRefresh(canList ? { kind: 'teamInvitations', teamId } : null);
  const [email, setEmail] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const invite = useAction(async (to: string) => {
    await client.inviteToTeam({ teamId, email: to }); // the link goes to this tab's team-invitation page
    setSentTo(to);
    setEmail('');
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const to = email.trim();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(to)) {
      setProblem('Type the e-mail address of the person to invite.');
      return;
    }
    setProblem(null);
    setSentTo(null);
    void invite.run(to);
  };
  const list = invitations.data ?? [];
  const mailbox = sentTo === null ? null : mailboxUrl(sentTo);
  return (
    <Card
      title="Invitations"
      description="People you invite get an e-mail with a link to join. Invitations expire after 7 days."
    >
      <form className="inline-form" onSubmit={onSubmit} data-testid={T.inviteForm} noValidate>
        <Field label="E-mail" problem={problem}>
          <input
            className="input"
            type="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            placeholder="teammate@example.com"
            data-testid={T.inviteEmail}
          />
        </Field>
        <Button type="submit" variant="primary" busy={invite.busy} testid={T.inviteSubmit}>
          Send invitation
        </Button>
      </form>
      <ErrorText error={invite.error} />
      {sentTo && (
        <Success>
          Invitation sent to {sentTo}.{' '}
          {mailbox && (
            <a href={mailbox} target="_blank" rel="noreferrer">
              Open the mailbox ↗
            </a>
          )}
        </Success>
      )}
      {canList &&
        (invitations.isLoading ? (
          <Loading />
        ) : list.length === 0 ? (
          <Empty>No pending invitations.</Empty>
        ) : (
          <ul className="list">
            {list.map((invitation) => (
              <InvitationRow key={invitation.id} invitation={invitation} />
            ))}
          </ul>
        ))}
      <ErrorText error={canList && invitations.data === undefined ? invitations.error : null} />
    </Card>
  );
}
