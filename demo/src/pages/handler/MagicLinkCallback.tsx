import { useEffect, useState } from 'react';
import { useBrokerClient } from '../../../../client/react/index.js';
import { ErrorText } from '../../components/Alert.js';
import { Loading } from '../../components/Card.js';
import { MfaChallenge } from '../../components/MfaChallenge.js';
import { goAfterSignIn, useReturnTo } from '../../lib/auth.js';
import { useOneShot } from '../../lib/once.js';
import { Link, useLocation } from '../../router.js';
import { T } from '../../testids.js';
import { codeFrom, HandlerCard } from './HandlerCard.js';

/** `/handler/magic-link-callback?code=…`: signs in with the link's code (then MFA when needed). */
export function MagicLinkCallback() {
  const client = useBrokerClient();
  const returnTo = useReturnTo();
  const { search } = useLocation();
  const [code] = useState(() => codeFrom(search));
  const result = useOneShot(code === null ? null : `magic-link:${code}`, () => client.signInWithMagicLink(code!));
  const [restart, setRestart] = useState(false);
  const signedIn = result.status === 'done' && result.value.status === 'signed-in' ? result.value : null;
  useEffect(() => {
    if (signedIn) goAfterSignIn(client, { isNewUser: signedIn.isNewUser, returnTo });
  }, [signedIn, client, returnTo]);

  if (result.status === 'done' && result.value.status === 'mfa-required' && !restart) {
    return (
      <HandlerCard title="One more step" testid={T.magicLinkCallbackStatus} state="mfa-required">
        <MfaChallenge
          attemptCode={result.value.attemptCode}
          onSignedIn={(r) => goAfterSignIn(client, { isNewUser: r.isNewUser, returnTo })}
          onCancel={() => setRestart(true)}
        />
      </HandlerCard>
    );
  }
  if (code === null || result.status === 'error' || restart) {
    return (
      <HandlerCard title="Sign-in link" testid={T.magicLinkCallbackStatus} state="error">
        {!restart && (
          <ErrorText
            error={
              code === null
                ? 'This link has no sign-in code. Open the link from the e-mail again.'
                : result.status === 'error'
                  ? result.error
                  : null
            }
          />
        )}
        <Link className="btn btn-primary" to={`${client.paths.signIn}?method=magic-link`}>
          Get a new sign-in code
        </Link>
      </HandlerCard>
    );
  }
  return (
    <HandlerCard
      title="Signing you in"
      testid={T.magicLinkCallbackStatus}
      state={signedIn ? 'signed-in' : 'signing-in'}
    >
      <Loading>{signedIn ? 'Signed in. Taking you back…' : 'Checking your sign-in link…'}</Loading>
    </HandlerCard>
  );
}
