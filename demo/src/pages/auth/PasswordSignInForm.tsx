import { useState, type FormEvent } from 'react';
import type { SignInResult } from '../../../../client/index.js';
import { useBrokerClient } from '../../../../client/react/index.js';
import { ErrorText } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Field } from '../../components/Field.js';
import { useAction } from '../../lib/useAction.js';
import { Link } from '../../router.js';
import { T } from '../../testids.js';

export function PasswordSignInForm({ onResult }: { onResult: (result: SignInResult) => void }) {
  const client = useBrokerClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = useAction(async () => onResult(await client.signInWithPassword({ email: email.trim(), password })));
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (email.trim() === '' || password === '') {
      setProblem('Type your e-mail and your password.');
      return;
    }
    setProblem(null);
    void submit.run();
  };
  return (
    <form className="stack" onSubmit={onSubmit} data-testid={T.signInForm} noValidate>
      <Field label="E-mail">
        <input
          className="input"
          type="email"
          autoComplete="username"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          placeholder="you@example.com"
          data-testid={T.signInEmail}
        />
      </Field>
      <Field
        label={
          <span className="row between">
            <span>Password</span>
            <Link to={client.paths.forgotPassword} className="small">
              Forgot it?
            </Link>
          </span>
        }
      >
        <input
          className="input"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          data-testid={T.signInPassword}
        />
      </Field>
      <ErrorText error={problem ?? submit.error} />
      <Button type="submit" variant="primary" size="large" busy={submit.busy} testid={T.signInSubmit}>
        Sign in
      </Button>
    </form>
  );
}
