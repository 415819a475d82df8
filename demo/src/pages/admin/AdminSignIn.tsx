import { useState, type FormEvent } from 'react';
import { useBrokerClient } from '../../../../client/react/index.js';
import { ErrorText } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Field } from '../../components/Field.js';
import { MfaChallenge } from '../../components/MfaChallenge.js';
import { useAction } from '../../lib/useAction.js';
import { T } from '../../testids.js';
import { AuthCard } from '../auth/AuthCard.js';

/**
 * Project owners sign in here, to the `internal` project; that session is separate from the app's
 * own (you can be signed in to both, as different people) and only powers the admin area.
 */
export function AdminSignIn() {
  const client = useBrokerClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [mfa, setMfa] = useState<string | null>(null);
  const submit = useAction(async () => {
    const result = await client.adminSignInWithPassword({ email: email.trim(), password });
    if (result.status === 'mfa-required') setMfa(result.attemptCode);
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (email.trim() === '' || password === '') {
      submit.setError('Type the project owner’s e-mail and password.');
      return;
    }
    void submit.run();
  };
  if (mfa !== null) {
    return (
      <AuthCard title="One more step">
        <MfaChallenge admin attemptCode={mfa} onSignedIn={() => setMfa(null)} onCancel={() => setMfa(null)} />
      </AuthCard>
    );
  }
  return (
    <AuthCard
      title="Project admin"
      subtitle="Sign in as a project owner. This is separate from your sign-in to the app."
    >
      <form className="stack" onSubmit={onSubmit} data-testid={T.adminSignInForm} noValidate>
        <Field label="Owner e-mail">
          <input
            className="input"
            type="email"
            autoComplete="username"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            placeholder="owner@example.com"
            data-testid={T.adminEmail}
          />
        </Field>
        <Field label="Password">
          <input
            className="input"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            data-testid={T.adminPassword}
          />
        </Field>
        <ErrorText error={submit.error} />
        <Button type="submit" variant="primary" size="large" busy={submit.busy} testid={T.adminSignInSubmit}>
          Sign in to admin
        </Button>
        <p className="muted small">
          Locally: <code>admin@authbroker.dev</code> / <code>admin-password</code> owns the demo project.
        </p>
      </form>
    </AuthCard>
  );
}
