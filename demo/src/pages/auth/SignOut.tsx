import { useState } from 'react';
import { useBrokerClient } from '../../../../client/react/index.js';
import { ErrorText } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Loading } from '../../components/Card.js';
import { useOneShot, useVisitId } from '../../lib/once.js';
import { Link } from '../../router.js';
import { T } from '../../testids.js';
import { AuthCard } from './AuthCard.js';

/** Visiting the sign-out page signs out (every tab follows), then offers the way back. */
export function SignOut() {
  const client = useBrokerClient();
  const visit = useVisitId();
  const [attempt, setAttempt] = useState(0);
  const result = useOneShot(`sign-out:${visit}:${attempt}`, () => client.signOut());
  const state = result.status === 'done' ? 'done' : result.status === 'error' ? 'error' : 'signing-out';
  return (
    <AuthCard title={state === 'done' ? 'You are signed out' : 'Signing out'}>
      <div className="stack" data-testid={T.signOutStatus} data-state={state}>
        {state === 'signing-out' && <Loading>Signing out of every tab…</Loading>}
        {state === 'done' && (
          <>
            <p className="muted">You are signed out in every tab of this site. See you soon.</p>
            <div className="row">
              <Link className="btn btn-primary" to={client.paths.signIn}>
                Sign in again
              </Link>
              <Link className="btn btn-secondary" to={client.paths.afterSignOut}>
                Home
              </Link>
            </div>
          </>
        )}
        {result.status === 'error' && (
          <>
            <ErrorText error={result.error} />
            <Button variant="primary" onClick={() => setAttempt(attempt + 1)}>
              Try again
            </Button>
          </>
        )}
      </div>
    </AuthCard>
  );
}
