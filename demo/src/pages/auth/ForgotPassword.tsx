import { useState, type FormEvent } from 'react';
import { useBrokerClient } from '../../../../client/react/index.js';
import { ErrorText, Success } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Field } from '../../components/Field.js';
import { mailboxUrl } from '../../lib/config.js';
import { useAction } from '../../lib/useAction.js';
import { Link } from '../../router.js';
import { T } from '../../testids.js';
import { AuthCard } from './AuthCard.js';

export function ForgotPassword() {
  const client = useBrokerClient();
  const [email, setEmail] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const send = useAction(async (to: string) => {
    await client.sendPasswordResetEmail({ email: to }); // the link goes to this tab's password-reset page
    setSentTo(to);
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const to = email.trim();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(to)) {
      setProblem('Type the e-mail address of your account.');
      return;
    }
    setProblem(null);
    void send.run(to);
  };
  const mailbox = sentTo === null ? null : mailboxUrl(sentTo);
  return (
    <AuthCard
      title="Reset your password"
      subtitle="We will e-mail you a link to choose a new one."
      footer={
        <>
          Remembered it? <Link to={client.paths.signIn}>Sign in</Link>
        </>
      }
    >
      {sentTo !== null ? (
        <div className="stack" data-testid={T.forgotPasswordSent}>
          <Success>
            If an account uses <b>{sentTo}</b>, a reset link is on its way. It stays valid for 7 days.
          </Success>
          {mailbox && (
            <a className="btn btn-secondary" href={mailbox} target="_blank" rel="noreferrer">
              Open the local mailbox ↗
            </a>
          )}
          <Button variant="link" onClick={() => setSentTo(null)}>
            Send to another address
          </Button>
        </div>
      ) : (
        <form className="stack" onSubmit={onSubmit} data-testid={T.forgotPasswordForm} noValidate>
          <Field label="E-mail" problem={problem}>
            <input
              className="input"
              type="email"
              autoComplete="email"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              placeholder="you@example.com"
              data-testid={T.forgotPasswordEmail}
            />
          </Field>
          <ErrorText error={send.error} />
          <Button type="submit" variant="primary" size="large" busy={send.busy} testid={T.forgotPasswordSubmit}>
            {send.busy ? 'Sending… (this takes a few seconds)' : 'Send reset link'}
          </Button>
        </form>
      )}
    </AuthCard>
  );
}
