import { useState } from 'react';
import { useBrokerClient } from '../../../client/react/index.js';
import { useAuth } from '../lib/auth.js';
import { Link } from '../router.js';
import { T } from '../testids.js';
import { Alert } from './Alert.js';
import { Button } from './Button.js';

/**
 * When a session ends without the person asking (revoked elsewhere, password reset, account
 * deleted, site data cleared), every tab says so once, with the broker's reason.
 */
export function SessionEndNotice() {
  const client = useBrokerClient();
  const auth = useAuth();
  const [dismissed, setDismissed] = useState<number | null>(null);
  const end = auth.status === 'signed-out' ? auth.lastEnd : null;
  if (end === null || end.reason === 'signed-out' || dismissed === end.atMillis) return null;
  const title = end.reason === 'user-deleted' ? 'Your account was deleted.' : 'You were signed out.';
  return (
    <div className="notice-wrap">
      <Alert
        kind={end.reason === 'user-deleted' ? 'info' : 'warning'}
        title={title}
        testid={T.sessionEndNotice}
        actions={
          <>
            {end.reason !== 'user-deleted' && (
              <Link className="btn btn-primary btn-small" to={client.paths.signIn}>
                Sign in again
              </Link>
            )}
            <Button
              size="small"
              variant="ghost"
              onClick={() => setDismissed(end.atMillis)}
              testid={T.sessionEndNoticeDismiss}
            >
              Dismiss
            </Button>
          </>
        }
      >
        {end.reason === 'user-deleted'
          ? 'Everything about it is gone. You can create a new account at any time.'
          : end.message}
      </Alert>
    </div>
  );
}
