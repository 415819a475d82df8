import { useState, type FormEvent } from 'react';
import type { SignInResult } from '../../../client/index.js';
import { useBrokerClient } from '../../../client/react/index.js';
import { useAction } from '../lib/useAction.js';
import { T } from '../testids.js';
import { ErrorText } from './Alert.js';
import { Button } from './Button.js';
import { Field, TotpCodeInput } from './Field.js';
import { ProviderIcon } from './ProviderIcon.js';

/**
 * The second step after any sign-in that answered `mfa-required`: the 6-digit code from the
 * person's authenticator app, sent with the attempt code (valid 5 minutes, 20 tries).
 */
export function MfaChallenge({
  attemptCode,
  admin = false,
  onSignedIn,
  onCancel,
}: {
  attemptCode: string;
  admin?: boolean;
  onSignedIn: (result: Extract<SignInResult, { status: 'signed-in' }>) => void;
  onCancel?: () => void;
}) {
  const client = useBrokerClient();
  const [code, setCode] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = useAction(async () => {
    const totp = code.replace(/\s+/g, '');
    const input = { attemptCode, totp };
    const result = admin ? await client.adminSignInWithMfa(input) : await client.signInWithMfa(input);
    if (result.status === 'signed-in') onSignedIn(result);
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const totp = code.replace(/\s+/g, '');
    if (!/^\d{6}$/.test(totp)) {
      setProblem('Type the 6 digits your authenticator app shows.');
      return;
    }
    setProblem(null);
    void submit.run();
  };
  return (
    <form className="stack mfa-challenge" onSubmit={onSubmit} data-testid={T.mfaChallenge} noValidate>
      <div className="mfa-intro">
        <span className="mfa-glyph">
          <ProviderIcon id="shield" />
        </span>
        <div>
          <h2 className="card-title">Two-factor authentication</h2>
          <p className="muted">Open your authenticator app and type the 6-digit code it shows for this account.</p>
        </div>
      </div>
      <Field label="Authentication code" problem={problem}>
        <TotpCodeInput value={code} onChange={setCode} testid={T.mfaCode} autoFocus />
      </Field>
      <ErrorText error={submit.error} />
      <div className="row">
        <Button type="submit" variant="primary" busy={submit.busy} testid={T.mfaSubmit}>
          Verify and sign in
        </Button>
        {onCancel && (
          <Button variant="ghost" onClick={onCancel} testid={T.mfaCancel}>
            Start again
          </Button>
        )}
      </div>
    </form>
  );
}
