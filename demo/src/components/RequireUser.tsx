import type { ReactNode } from 'react';
import type { User } from '../../../client/index.js';
import { useBrokerClient } from '../../../client/react/index.js';
import { signInHref, useAuth } from '../lib/auth.js';
import { Link, useLocation } from '../router.js';
import { T } from '../testids.js';
import { Card, Loading } from './Card.js';

/**
 * Shows its content to a signed-in person or a guest (an anonymous user); others get a friendly way to sign in and come
 * back, and a restricted person (an unverified e-mail where the project requires one, an administrator's hold) the way
 * to the onboarding page.
 */
export function RequireUser({ children, what = 'this page' }: { children: (user: User) => ReactNode; what?: string }) {
  const client = useBrokerClient();
  const auth = useAuth();
  const location = useLocation();
  if (auth.status === 'loading') return <Loading />;
  if (auth.status === 'signed-out') {
    return (
      <Card className="narrow center" title="Please sign in" description={`Sign in to see ${what}.`}>
        <div className="row center">
          <Link className="btn btn-primary" to={signInHref(client, location.href)}>
            Sign in
          </Link>
          <Link className="btn btn-secondary" to={client.paths.signUp}>
            Create an account
          </Link>
        </div>
      </Card>
    );
  }
  if (auth.user.isRestricted && !auth.user.isAnonymous) {
    return (
      <Card className="narrow center" title="Finish signing up" description={`Finish signing up to see ${what}.`}>
        <div className="row center" data-testid={T.restrictedNotice}>
          <Link
            className="btn btn-primary"
            to={`${client.paths.onboarding}?after_auth_return_to=${encodeURIComponent(location.href)}`}
          >
            Continue
          </Link>
        </div>
      </Card>
    );
  }
  return <>{children(auth.user)}</>;
}
