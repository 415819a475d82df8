import { useState } from 'react';
import type { OAuthResult } from '../../../../client/index.js';
import { useBrokerClient } from '../../../../client/react/index.js';
import { ErrorText } from '../../components/Alert.js';
import { Loading } from '../../components/Card.js';
import { MfaChallenge } from '../../components/MfaChallenge.js';
import { useOneShot } from '../../lib/once.js';
import { Link, navigate } from '../../router.js';
import { T } from '../../testids.js';
import { HandlerCard } from './HandlerCard.js';

/**
 * `/handler/oauth-callback`: the provider sent the browser back. `handleOAuthCallback` removes
 * code and state from the address bar, completes the sign-in in the broker and moves on by itself;
 * only a second factor (or an error) keeps us here.
 */
export function OAuthCallback() {
  const client = useBrokerClient();
  // The address as the provider sent it; the call below cleans the address bar.
  const [href] = useState(() => location.href);
  const result = useOneShot<OAuthResult>(`oauth-callback:${href}`, () => client.handleOAuthCallback());
  const [restart, setRestart] = useState(false);

  if (result.status === 'done' && result.value.status === 'mfa-required' && !restart) {
    const { attemptCode, afterCallbackRedirectUrl } = result.value;
    return (
      <HandlerCard title="One more step" testid={T.oauthCallbackStatus} state="mfa-required">
        <MfaChallenge
          attemptCode={attemptCode}
          onSignedIn={(r) =>
            navigate(afterCallbackRedirectUrl ?? (r.isNewUser ? client.paths.afterSignUp : client.paths.afterSignIn), {
              replace: true,
            })
          }
          onCancel={() => setRestart(true)}
        />
      </HandlerCard>
    );
  }
  if (result.status === 'error' || restart) {
    return (
      <HandlerCard title="Sign-in did not finish" testid={T.oauthCallbackStatus} state="error">
        {!restart && <ErrorText error={result.status === 'error' ? result.error : null} />}
        <Link className="btn btn-primary" to={client.paths.signIn}>
          Back to sign-in
        </Link>
      </HandlerCard>
    );
  }
  const done = result.status === 'done';
  return (
    <HandlerCard title="Signing you in" testid={T.oauthCallbackStatus} state={done ? 'signed-in' : 'completing'}>
      <Loading>{done ? 'Signed in. Taking you back…' : 'Finishing sign-in with your provider…'}</Loading>
    </HandlerCard>
  );
}
