import { useState } from 'react';
import { useBrokerClient } from '../../../../client/react/index.js';
import { ErrorText, Success } from '../../components/Alert.js';
import { Loading } from '../../components/Card.js';
import { useAuth } from '../../lib/auth.js';
import { useOneShot } from '../../lib/once.js';
import { Link, useLocation } from '../../router.js';
import { T } from '../../testids.js';
import { codeFrom, HandlerCard } from './HandlerCard.js';

/** `/handler/email-verification?code=…`: verifies the address the e-mail was sent to. */
export function EmailVerification() {
  const client = useBrokerClient();
  const auth = useAuth();
  const { search } = useLocation();
  // The code as the page opened with it (the address bar may change afterwards).
  const [code] = useState(() => codeFrom(search));
  const result = useOneShot(code === null ? null : `verify-email:${code}`, () => client.verifyEmail(code!));
  const state =
    code === null
      ? 'missing'
      : result.status === 'done'
        ? 'verified'
        : result.status === 'error'
          ? 'error'
          : 'verifying';
  return (
    <HandlerCard title="E-mail verification" testid={T.emailVerificationStatus} state={state}>
      {state === 'verifying' && <Loading>Verifying your e-mail…</Loading>}
      {state === 'missing' && (
        <ErrorText error="This link has no verification code. Open the link from the e-mail again." />
      )}
      {state === 'verified' && <Success>Your e-mail address is verified. Thank you!</Success>}
      {result.status === 'error' && <ErrorText error={result.error} />}
      {state !== 'verifying' && (
        <div className="row">
          <Link
            className="btn btn-primary"
            to={auth.status === 'signed-in' ? `${client.paths.accountSettings}?section=emails` : client.paths.signIn}
          >
            {auth.status === 'signed-in' ? 'See your e-mails' : 'Sign in'}
          </Link>
          <Link className="btn btn-secondary" to={client.paths.home}>
            Home
          </Link>
        </div>
      )}
    </HandlerCard>
  );
}
