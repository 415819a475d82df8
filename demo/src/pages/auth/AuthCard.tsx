import type { ReactNode } from 'react';
import { useBrokerClient } from '../../../../client/react/index.js';
import { Avatar } from '../../components/Avatar.js';
import { MfaChallenge } from '../../components/MfaChallenge.js';
import { useAuth, type AuthState, type useSignInOutcome } from '../../lib/auth.js';
import { Link } from '../../router.js';
import { T } from '../../testids.js';

/** The narrow card every sign-in and sign-up step sits in. */
export function AuthCard({
  title,
  subtitle,
  children,
  footer,
}: {
  title: ReactNode;
  subtitle?: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
}) {
  return (
    <div className="auth-wrap">
      <section className="card auth-card">
        <header className="auth-header">
          <h1 data-testid={T.pageTitle}>{title}</h1>
          {subtitle && <p className="muted">{subtitle}</p>}
        </header>
        {children}
      </section>
      {footer && <p className="auth-footer">{footer}</p>}
    </div>
  );
}

/** Shown on sign-in pages when someone is already signed in (maybe in another tab). */
export function AlreadySignedIn({ returnTo }: { returnTo: string | null }) {
  const client = useBrokerClient();
  const auth = useAuth();
  if (auth.status !== 'signed-in') return null;
  return (
    <AuthCard title="You are signed in">
      <div className="stack" data-testid={T.signedInAlready}>
        <div className="row">
          <Avatar
            src={auth.user.profileImageUrl}
            name={auth.user.displayName}
            email={auth.user.primaryEmail}
            size={40}
          />
          <div>
            <div>
              <b>{auth.user.displayName ?? auth.user.primaryEmail}</b>
            </div>
            <div className="muted small">{auth.user.primaryEmail}</div>
          </div>
        </div>
        <Link className="btn btn-primary btn-large" to={returnTo ?? client.paths.afterSignIn}>
          Continue
        </Link>
        <Link className="btn btn-ghost" to={client.paths.signOut}>
          Sign out
        </Link>
      </div>
    </AuthCard>
  );
}

export function Divider({ children = 'or' }: { children?: ReactNode }) {
  return (
    <div className="divider" role="separator">
      <span>{children}</span>
    </div>
  );
}

/**
 * What a sign-in or sign-up page shows instead of its form: the MFA challenge after a password
 * that needs one, or "already signed in" (not while the page is navigating away after success).
 */
export function signInInterstitial(
  outcome: ReturnType<typeof useSignInOutcome>,
  auth: AuthState,
  returnTo: string | null,
): ReactNode | null {
  if (outcome.mfaAttemptCode !== null) {
    return (
      <AuthCard title="One more step">
        <MfaChallenge attemptCode={outcome.mfaAttemptCode} onSignedIn={outcome.onResult} onCancel={outcome.cancelMfa} />
      </AuthCard>
    );
  }
  if (auth.status === 'signed-in' && !outcome.finishing) return <AlreadySignedIn returnTo={returnTo} />;
  return null;
}
