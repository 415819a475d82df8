import { useState } from 'react';
import { useBrokerClient, useContactChannels, useUser } from '../../../../client/react/index.js';
import { ErrorText, Success } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { useReturnTo } from '../../lib/auth.js';
import { useAction } from '../../lib/useAction.js';
import { Link } from '../../router.js';
import { T } from '../../testids.js';
import { HandlerCard } from './HandlerCard.js';

/**
 * `/handler/onboarding`: where `useUser({ or: 'redirect' })` sends a restricted user, one held back until they do what
 * the project requires (verify their e-mail) or until an administrator lifts a restriction. It reads the user with
 * `includeRestricted`, and sends them back (`after_auth_return_to`) once nothing holds them.
 */
export function Onboarding() {
  const client = useBrokerClient();
  const user = useUser({ or: 'redirect', includeRestricted: true });
  const primary = useContactChannels().find((channel) => channel.isPrimary);
  const returnTo = useReturnTo();
  const [sent, setSent] = useState(false);
  const resend = useAction(async (channelId: string) => {
    await client.sendContactChannelVerification(channelId);
    setSent(true);
  });
  const reason = user.restrictedReason?.type ?? 'none';
  return (
    <HandlerCard title="Finish signing up" testid={T.onboardingStatus} state={reason}>
      {reason === 'none' && (
        <>
          <Success>You are all set.</Success>
          <Link className="btn btn-primary" to={returnTo ?? client.paths.afterSignIn}>
            Continue
          </Link>
        </>
      )}
      {reason === 'email_not_verified' && (
        <>
          <p>
            This app needs a verified e-mail address. Open the link we sent to <b>{user.primaryEmail}</b>; every tab
            carries on once it is verified.
          </p>
          {primary && (
            <Button busy={resend.busy} onClick={() => void resend.run(primary.id)} testid={T.onboardingResend}>
              Send the link again
            </Button>
          )}
          {sent && <Success>Sent. Check your inbox.</Success>}
        </>
      )}
      {reason === 'restricted_by_administrator' && (
        <p>Your account is on hold: {user.restrictedByAdminReason ?? 'please contact the team behind this app'}.</p>
      )}
      {reason === 'anonymous' && (
        <Link className="btn btn-primary" to={client.paths.signUp}>
          Create an account
        </Link>
      )}
      <ErrorText error={resend.error} />
    </HandlerCard>
  );
}
