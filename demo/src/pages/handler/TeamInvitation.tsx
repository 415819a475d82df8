import { useState } from 'react';
import { useBrokerClient } from '../../../../client/react/index.js';
import { ErrorText, Success } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Loading } from '../../components/Card.js';
import { signInHref, useAuth } from '../../lib/auth.js';
import { useOneShot } from '../../lib/once.js';
import { useAction } from '../../lib/useAction.js';
import { Link, useLocation } from '../../router.js';
import { T } from '../../testids.js';
import { codeFrom, HandlerCard } from './HandlerCard.js';

/**
 * `/handler/team-invitation?code=…`: shows which team invites the signed-in person, and joins it
 * when they accept. Signed-out visitors sign in first (accepting signed out would burn the code).
 */
export function TeamInvitation() {
  const client = useBrokerClient();
  const auth = useAuth();
  const location = useLocation();
  const [code] = useState(() => codeFrom(location.search));
  const userId = auth.status === 'signed-in' ? auth.user.id : null;
  const details = useOneShot(code !== null && userId !== null ? `invitation-details:${code}:${userId}` : null, () =>
    client.getTeamInvitationDetails(code!),
  );
  const [accepted, setAccepted] = useState(false);
  const accept = useAction(async () => {
    await client.acceptTeamInvitation(code!);
    setAccepted(true);
  });

  if (code === null) {
    return (
      <HandlerCard title="Team invitation" testid={T.teamInvitationStatus} state="error">
        <ErrorText error="This link has no invitation code. Open the link from the e-mail again." />
      </HandlerCard>
    );
  }
  if (auth.status === 'loading') return <Loading />;
  if (auth.status === 'signed-out') {
    return (
      <HandlerCard
        title="You are invited to a team"
        subtitle="Sign in or create an account to see the invitation."
        testid={T.teamInvitationStatus}
        state="signed-out"
      >
        <Link
          className="btn btn-primary btn-large"
          to={signInHref(client, location.href)}
          data-testid={T.teamInvitationSignIn}
        >
          Sign in to continue
        </Link>
        <Link
          className="btn btn-secondary"
          to={`${client.paths.signUp}?after_auth_return_to=${encodeURIComponent(location.href)}`}
        >
          Create an account
        </Link>
      </HandlerCard>
    );
  }
  if (details.status === 'error') {
    return (
      <HandlerCard title="Team invitation" testid={T.teamInvitationStatus} state="error">
        <ErrorText error={details.error} />
        <Link className="btn btn-secondary" to="/teams">
          Your teams
        </Link>
      </HandlerCard>
    );
  }
  if (details.status !== 'done') return <Loading>Opening the invitation…</Loading>;
  const team = details.value;
  if (accepted) {
    return (
      <HandlerCard title="Welcome to the team" testid={T.teamInvitationStatus} state="accepted">
        <Success>
          You joined <b data-testid={T.teamInvitationTeamName}>{team.teamDisplayName}</b>.
        </Success>
        <Link className="btn btn-primary" to={`/teams/${team.teamId}`}>
          Open the team
        </Link>
      </HandlerCard>
    );
  }
  return (
    <HandlerCard title="Join a team" testid={T.teamInvitationStatus} state="ready">
      <p className="lead-sm">
        You are invited to join <b data-testid={T.teamInvitationTeamName}>{team.teamDisplayName}</b>.
      </p>
      <p className="muted small">
        You will join as {auth.user.primaryEmail ?? 'your account'}. Any signed-in person holding this link can accept
        it.
      </p>
      <ErrorText error={accept.error} />
      <div className="row">
        <Button
          variant="primary"
          size="large"
          busy={accept.busy}
          onClick={() => void accept.run()}
          testid={T.teamInvitationAccept}
        >
          Accept invitation
        </Button>
        <Link className="btn btn-ghost" to={client.paths.home}>
          Not now
        </Link>
      </div>
    </HandlerCard>
  );
}
