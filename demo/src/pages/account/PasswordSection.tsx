import { useState, type FormEvent } from 'react';
import { isKnownError, type User } from '../../../../client/index.js';
import { useBrokerClient } from '../../../../client/react/index.js';
import { ErrorText, Success } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Card } from '../../components/Card.js';
import { Field } from '../../components/Field.js';
import { PasswordFields, usePasswordPair } from '../../components/PasswordFields.js';
import { useAction } from '../../lib/useAction.js';
import { T } from '../../testids.js';

/** Change the password (with the current one), or set one for accounts that never had one. */
export function PasswordSection({ user }: { user: User }) {
  const client = useBrokerClient();
  const hasPassword = user.hasPassword;
  const [oldPassword, setOldPassword] = useState('');
  const [oldProblem, setOldProblem] = useState<string | null>(null);
  const pair = usePasswordPair();
  const [done, setDone] = useState<string | null>(null);
  const submit = useAction(async () => {
    if (hasPassword) await client.updatePassword({ oldPassword, newPassword: pair.password });
    else await client.setPassword({ password: pair.password });
    setDone(hasPassword ? 'Your password was changed.' : 'Your password is set. You can now sign in with it.');
    setOldPassword('');
    pair.clear();
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setDone(null);
    const oldOk = !hasPassword || oldPassword !== '';
    setOldProblem(oldOk ? null : 'Type your current password.');
    const pairOk = pair.validate();
    if (oldOk && pairOk) void submit.run();
  };
  return (
    <Card
      title={hasPassword ? 'Change your password' : 'Set a password'}
      description={
        hasPassword
          ? 'You will stay signed in on this device.'
          : 'Your account has no password yet (you signed in another way). Add one to sign in with it too.'
      }
    >
      <form
        className="stack"
        onSubmit={onSubmit}
        data-testid={T.passwordForm}
        data-mode={hasPassword ? 'change' : 'set'}
        noValidate
      >
        {hasPassword && (
          <Field label="Current password" problem={oldProblem}>
            <input
              className="input"
              type="password"
              autoComplete="current-password"
              value={oldPassword}
              onChange={(e) => setOldPassword(e.target.value)}
              data-testid={T.passwordOld}
            />
          </Field>
        )}
        <PasswordFields
          pair={pair}
          label="New password"
          passwordTestid={T.passwordNew}
          confirmationTestid={T.passwordConfirm}
        />
        <ErrorText
          error={
            // The service answers a wrong current password with this code, whose usual sentence ("the passwords do not
            // match") would mislead here.
            isKnownError(submit.error, 'PASSWORD_CONFIRMATION_MISMATCH')
              ? 'Your current password is not right. Try again, or reset it by e-mail.'
              : submit.error
          }
        />
        {done && <Success>{done}</Success>}
        <div className="row">
          <Button type="submit" variant="primary" busy={submit.busy} testid={T.passwordSubmit}>
            {hasPassword ? 'Change password' : 'Set password'}
          </Button>
        </div>
      </form>
    </Card>
  );
}
