import { useState } from 'react';
import { useBrokerClient, usePasskeysAvailable, useProject } from '../../../../client/react/index.js';
import { ErrorText } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Loading } from '../../components/Card.js';
import { OAuthButtons } from '../../components/OAuthButtons.js';
import { ProviderIcon } from '../../components/ProviderIcon.js';
import { Tabs } from '../../components/Tabs.js';
import { useAuth, useReturnTo, useSignInOutcome } from '../../lib/auth.js';
import { useAction } from '../../lib/useAction.js';
import { Link, useLocation } from '../../router.js';
import { T } from '../../testids.js';
import { AuthCard, Divider, signInInterstitial } from './AuthCard.js';
import { MagicLinkForm } from './MagicLinkForm.js';
import { PasswordSignInForm } from './PasswordSignInForm.js';

type Method = 'password' | 'magic-link';

export function SignIn() {
  const client = useBrokerClient();
  const project = useProject();
  const auth = useAuth();
  const returnTo = useReturnTo();
  const { search } = useLocation();
  const [method, setMethod] = useState<Method>(search.get('method') === 'magic-link' ? 'magic-link' : 'password');
  const outcome = useSignInOutcome(returnTo);
  const { onResult } = outcome;
  const passkey = useAction(async () => onResult(await client.signInWithPasskey()));
  // A guest: a user without e-mail (anonymous), which a later sign-up turns into a real account.
  const guest = useAction(async () => onResult(await client.signUpAnonymously()));
  const passkeysHere = usePasskeysAvailable();

  const interstitial = signInInterstitial(outcome, auth, returnTo);
  if (interstitial !== null) return interstitial;
  if (project === null) return <Loading />;

  const { credentialEnabled, magicLinkEnabled, passkeyEnabled } = project.config;
  const methods: Array<{ id: Method; label: string; testid: string }> = [
    ...(credentialEnabled ? [{ id: 'password' as const, label: 'Password', testid: T.signInTabPassword }] : []),
    ...(magicLinkEnabled ? [{ id: 'magic-link' as const, label: 'E-mail code', testid: T.signInTabMagicLink }] : []),
  ];
  const shown = methods.some((m) => m.id === method) ? method : (methods[0]?.id ?? null);
  const hasOAuth = project.config.enabledOauthProviders.length > 0;
  return (
    <AuthCard
      title="Sign in"
      subtitle={`to ${project.displayName}`}
      footer={
        project.config.signUpEnabled && (
          <>
            New here?{' '}
            <Link to={client.paths.signUp + (returnTo ? `?after_auth_return_to=${encodeURIComponent(returnTo)}` : '')}>
              Create an account
            </Link>
          </>
        )
      }
    >
      <div className="stack">
        <OAuthButtons returnTo={returnTo} />
        {passkeyEnabled && passkeysHere && (
          <>
            <Button
              size="large"
              className="btn-provider"
              busy={passkey.busy}
              onClick={() => void passkey.run()}
              testid={T.passkeySignIn}
            >
              <ProviderIcon id="passkey" />
              Sign in with a passkey
            </Button>
            <ErrorText error={passkey.error} />
          </>
        )}
        {passkeyEnabled && !passkeysHere && (
          // No button that could only fail: this browser has no WebAuthn.
          <p className="muted small" data-testid={T.passkeyUnavailable}>
            Passkeys are not available in this browser. Sign in another way below.
          </p>
        )}
        {(hasOAuth || passkeyEnabled) && shown !== null && <Divider />}
        {methods.length > 1 && (
          <Tabs label="Sign-in method" tabs={methods} value={shown ?? 'password'} onChange={setMethod} />
        )}
        {shown === 'password' && <PasswordSignInForm onResult={onResult} />}
        {shown === 'magic-link' && <MagicLinkForm onResult={onResult} />}
        {auth.status === 'signed-out' && project.config.signUpEnabled && (
          <>
            <Divider />
            <Button variant="ghost" busy={guest.busy} onClick={() => void guest.run()} testid={T.continueAsGuest}>
              Continue as a guest
            </Button>
            <ErrorText error={guest.error} />
          </>
        )}
      </div>
    </AuthCard>
  );
}
