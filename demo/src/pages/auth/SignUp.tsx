import { useState, type FormEvent } from 'react';
import { useBrokerClient, useProject } from '../../../../client/react/index.js';
import { Alert, ErrorText } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Loading } from '../../components/Card.js';
import { Field } from '../../components/Field.js';
import { OAuthButtons } from '../../components/OAuthButtons.js';
import { PasswordFields, usePasswordPair } from '../../components/PasswordFields.js';
import { Tabs } from '../../components/Tabs.js';
import { useAuth, useReturnTo, useSignInOutcome } from '../../lib/auth.js';
import { useAction } from '../../lib/useAction.js';
import { Link } from '../../router.js';
import { T } from '../../testids.js';
import { AuthCard, Divider, signInInterstitial } from './AuthCard.js';
import { MagicLinkForm } from './MagicLinkForm.js';

type Method = 'password' | 'magic-link';

export function SignUp() {
  const client = useBrokerClient();
  const project = useProject();
  const auth = useAuth();
  const returnTo = useReturnTo();
  const [method, setMethod] = useState<Method>('password');
  const [email, setEmail] = useState('');
  const [emailProblem, setEmailProblem] = useState<string | null>(null);
  const pair = usePasswordPair();
  const outcome = useSignInOutcome(returnTo);
  const { onResult } = outcome;
  const submit = useAction(async () =>
    onResult(await client.signUpWithPassword({ email: email.trim(), password: pair.password })),
  );
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const emailOk = /^[^\s@.][^\s@]*@[^\s@]+\.[^\s@]{2,}$/.test(email.trim());
    setEmailProblem(emailOk ? null : 'Type a valid e-mail address.');
    const passwordOk = pair.validate();
    if (emailOk && passwordOk) void submit.run();
  };

  const interstitial = signInInterstitial(outcome, auth, returnTo);
  if (interstitial !== null) return interstitial;
  if (project === null) return <Loading />;
  const signIn = (
    <>
      Already have an account?{' '}
      <Link to={client.paths.signIn + (returnTo ? `?after_auth_return_to=${encodeURIComponent(returnTo)}` : '')}>
        Sign in
      </Link>
    </>
  );
  if (!project.config.signUpEnabled) {
    return (
      <AuthCard title="Create an account" footer={signIn}>
        <Alert kind="info">New accounts cannot be created here at the moment.</Alert>
      </AuthCard>
    );
  }
  const { credentialEnabled, magicLinkEnabled } = project.config;
  const methods: Array<{ id: Method; label: string }> = [
    ...(credentialEnabled ? [{ id: 'password' as const, label: 'Password' }] : []),
    ...(magicLinkEnabled ? [{ id: 'magic-link' as const, label: 'E-mail code' }] : []),
  ];
  const shown = methods.some((m) => m.id === method) ? method : (methods[0]?.id ?? null);
  return (
    <AuthCard title="Create an account" subtitle={`for ${project.displayName}`} footer={signIn}>
      <div className="stack">
        {auth.status === 'anonymous' && (
          // The broker sends the guest's token with the sign-up, so the service upgrades that user.
          <Alert kind="info" testid={T.signUpUpgradeNotice}>
            You are browsing as a guest: this account keeps everything you did as one.
          </Alert>
        )}
        <OAuthButtons returnTo={returnTo} verb="Sign up" />
        {project.config.enabledOauthProviders.length > 0 && shown !== null && <Divider />}
        {methods.length > 1 && (
          <Tabs label="Sign-up method" tabs={methods} value={shown ?? 'password'} onChange={setMethod} />
        )}
        {shown === 'password' && (
          <form className="stack" onSubmit={onSubmit} data-testid={T.signUpForm} noValidate>
            <Field label="E-mail" problem={emailProblem}>
              <input
                className="input"
                type="email"
                autoComplete="email"
                value={email}
                onChange={(e) => setEmail(e.target.value)}
                placeholder="you@example.com"
                data-testid={T.signUpEmail}
              />
            </Field>
            <PasswordFields
              pair={pair}
              passwordTestid={T.signUpPassword}
              confirmationTestid={T.signUpPasswordConfirm}
            />
            <ErrorText error={submit.error} />
            <Button type="submit" variant="primary" size="large" busy={submit.busy} testid={T.signUpSubmit}>
              Create account
            </Button>
            <p className="muted small">
              We will e-mail you a link to verify your address. You can use the app right away.
            </p>
          </form>
        )}
        {shown === 'magic-link' && <MagicLinkForm onResult={onResult} submitLabel="E-mail me a sign-up code" />}
      </div>
    </AuthCard>
  );
}
