import { useState } from 'react';
import { Field } from './Field.js';
import { confirmationMessage, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, passwordMessage } from '../lib/password.js';

/**
 * A new password and its confirmation, checked with the service's rules before anything is sent.
 * Problems show once the person tries to submit, then follow their typing.
 */
export function usePasswordPair() {
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [checked, setChecked] = useState(false);
  return {
    password,
    confirmation,
    passwordProblem: checked ? passwordMessage(password) : null,
    confirmationProblem: checked ? confirmationMessage(password, confirmation) : null,
    setPassword,
    setConfirmation,
    /** Shows the problems; true when the pair may be sent. */
    validate(): boolean {
      setChecked(true);
      return passwordMessage(password) === null && confirmationMessage(password, confirmation) === null;
    },
    clear() {
      setPassword('');
      setConfirmation('');
      setChecked(false);
    },
  };
}

export type PasswordPair = ReturnType<typeof usePasswordPair>;

export function PasswordFields({
  pair,
  passwordTestid,
  confirmationTestid,
  label = 'Password',
}: {
  pair: PasswordPair;
  passwordTestid: string;
  confirmationTestid: string;
  label?: string;
}) {
  return (
    <>
      <Field
        label={label}
        hint={`${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters.`}
        problem={pair.passwordProblem}
      >
        <input
          className="input"
          type="password"
          autoComplete="new-password"
          value={pair.password}
          onChange={(e) => pair.setPassword(e.target.value)}
          aria-invalid={pair.passwordProblem !== null || undefined}
          data-testid={passwordTestid}
        />
      </Field>
      <Field label="Repeat the password" problem={pair.confirmationProblem}>
        <input
          className="input"
          type="password"
          autoComplete="new-password"
          value={pair.confirmation}
          onChange={(e) => pair.setConfirmation(e.target.value)}
          aria-invalid={pair.confirmationProblem !== null || undefined}
          data-testid={confirmationTestid}
        />
      </Field>
    </>
  );
}
