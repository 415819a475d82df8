import { useState, type FormEvent } from 'react';
import { useBrokerClient } from '../../../../client/react/index.js';
import { ErrorText, Success } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Loading } from '../../components/Card.js';
import { PasswordFields, usePasswordPair } from '../../components/PasswordFields.js';
import { useOneShot } from '../../lib/once.js';
import { useAction } from '../../lib/useAction.js';
import { Link, useLocation } from '../../router.js';
import { T } from '../../testids.js';
import { codeFrom, HandlerCard } from './HandlerCard.js';

/** `/handler/password-reset?code=…`: checks the code first, then lets the person choose a password. */
export function PasswordReset() {
  const client = useBrokerClient();
  const { search } = useLocation();
  const [code] = useState(() => codeFrom(search));
  const check = useOneShot(code === null ? null : `reset-check:${code}`, () => client.checkPasswordResetCode(code!));
  const pair = usePasswordPair();
  const [done, setDone] = useState(false);
  const reset = useAction(async () => {
    await client.resetPassword({ code: code!, password: pair.password });
    setDone(true);
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (pair.validate()) void reset.run();
  };

  if (done) {
    return (
      <HandlerCard title="Password changed" testid={T.passwordResetDone} state="done">
        <Success>
          Your new password is set. For your safety every session was signed out: sign in with the new password.
        </Success>
        <Link className="btn btn-primary" to={client.paths.signIn}>
          Sign in
        </Link>
      </HandlerCard>
    );
  }
  if (code === null || check.status === 'error') {
    return (
      <HandlerCard title="Reset your password" testid={T.passwordResetInvalid} state="invalid">
        <ErrorText
          error={
            code === null
              ? 'This link has no reset code. Open the link from the e-mail again.'
              : check.status === 'error'
                ? check.error
                : null
          }
        />
        <Link className="btn btn-primary" to={client.paths.forgotPassword}>
          Send a new link
        </Link>
      </HandlerCard>
    );
  }
  if (check.status !== 'done') return <Loading>Checking your link…</Loading>;
  return (
    <HandlerCard
      title="Choose a new password"
      subtitle="It replaces your old one everywhere."
      testid={T.passwordResetForm}
      state="ready"
    >
      <form className="stack" onSubmit={onSubmit} noValidate>
        <PasswordFields
          pair={pair}
          label="New password"
          passwordTestid={T.passwordResetPassword}
          confirmationTestid={T.passwordResetConfirm}
        />
        <ErrorText error={reset.error} />
        <Button type="submit" variant="primary" size="large" busy={reset.busy} testid={T.passwordResetSubmit}>
          Set new password
        </Button>
      </form>
    </HandlerCard>
  );
}
