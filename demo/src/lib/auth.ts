import { useState } from 'react';
import { useBrokerClient, useQuery, useSession } from '../../../client/react/index.js';
import {
  readReturnTo,
  type BrokerClient,
  type SessionEnd,
  type SignInResult,
  type User,
} from '../../../client/index.js';
import { navigate, useLocation } from '../router.js';

export type AuthState =
  | { status: 'loading'; user: null; lastEnd: null }
  | { status: 'signed-out'; user: null; lastEnd: SessionEnd | null }
  /** A guest (`client.signUpAnonymously()`): a user with no way to sign in again, until a sign-up upgrades it. */
  | { status: 'anonymous'; user: User; lastEnd: null }
  | { status: 'signed-in'; user: User; lastEnd: null };

/**
 * The session and the user together: "loading" until both are known, so pages never flash. A new
 * tab shows the user kept from the last visit at once (stale) while the broker starts; the session
 * then confirms it, or says nobody is signed in.
 */
export function useAuth(): AuthState {
  const session = useSession();
  const user = useQuery({ kind: 'currentUser' }).data;
  if (session.status === 'signed-out') return { status: 'signed-out', user: null, lastEnd: session.lastEnd };
  if (user) return { status: user.isAnonymous ? 'anonymous' : 'signed-in', user, lastEnd: null };
  return { status: 'loading', user: null, lastEnd: null };
}

/** `?after_auth_return_to=/path` (what `useUser({ or: 'redirect' })` and our guards add). */
export function useReturnTo(): string | null {
  useLocation(); // re-read on every navigation
  // The library's reader: a path of this app, never another site (nor `/\t/evil.example` tricks).
  return readReturnTo(location.href, { origin: location.origin });
}

/** The sign-in page, with a way back to where the person was. */
export function signInHref(client: BrokerClient, returnTo: string): string {
  return `${client.paths.signIn}?after_auth_return_to=${encodeURIComponent(returnTo)}`;
}

/** After a completed sign-in: back where the person came from, else the configured page. */
export function goAfterSignIn(client: BrokerClient, options: { isNewUser: boolean; returnTo: string | null }): void {
  navigate(options.returnTo ?? (options.isNewUser ? client.paths.afterSignUp : client.paths.afterSignIn), {
    replace: true,
  });
}

/**
 * What a sign-in page does with a result: an MFA challenge to show, or off to the next page.
 * `finishing` keeps the page from flashing "already signed in" while it navigates away.
 */
export function useSignInOutcome(returnTo: string | null) {
  const client = useBrokerClient();
  const [mfaAttemptCode, setMfaAttemptCode] = useState<string | null>(null);
  const [finishing, setFinishing] = useState(false);
  const onResult = (result: SignInResult) => {
    if (result.status === 'mfa-required') {
      setMfaAttemptCode(result.attemptCode);
      return;
    }
    setFinishing(true);
    goAfterSignIn(client, { isNewUser: result.isNewUser, returnTo });
  };
  return { mfaAttemptCode, finishing, onResult, cancelMfa: () => setMfaAttemptCode(null) };
}
