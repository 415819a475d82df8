import { useState, type FormEvent } from 'react';
import type { User } from '../../../../client/index.js';
import { useBrokerClient, useProject } from '../../../../client/react/index.js';
import { ErrorText, Success } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Badge, Card } from '../../components/Card.js';
import { Field, TotpCodeInput } from '../../components/Field.js';
import { QrCode } from '../../components/QrCode.js';
import { base32, groupSecret, otpauthUri, randomSecret, verifyTotp } from '../../lib/totp.js';
import { useAction } from '../../lib/useAction.js';
import { T } from '../../testids.js';

/**
 * Two-factor authentication with an authenticator app (TOTP). The secret is made here, shown as a
 * QR code and as text, and saved only after the person proves their app has it.
 */
export function Mfa({ user }: { user: User }) {
  const client = useBrokerClient();
  const project = useProject();
  const [secret, setSecret] = useState<Uint8Array<ArrayBuffer> | null>(null);
  const [code, setCode] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const enable = useAction(async (bytes: Uint8Array<ArrayBuffer>) => {
    await client.updateUser({ totpSecret: bytes });
    setSecret(null);
    setCode('');
    setNote('Two-factor authentication is on. You will be asked for a code from your app when you sign in.');
  });
  const disable = useAction(async () => {
    await client.updateUser({ totpSecret: null });
    setNote('Two-factor authentication is off.');
  });

  const onEnable = async (event: FormEvent) => {
    event.preventDefault();
    if (secret === null) return;
    if (!(await verifyTotp(secret, code))) {
      setProblem(
        /^\d{6}$/.test(code.replace(/\s+/g, ''))
          ? 'That code does not match. Check that your device shows the right time, and try the newest code.'
          : 'Type the 6 digits your app shows.',
      );
      return;
    }
    setProblem(null);
    void enable.run(secret);
  };

  const on = user.requiresTotpMfa;
  const account = user.primaryEmail ?? user.displayName ?? user.id;
  const issuer = project?.displayName ?? 'authbroker demo';
  const text = secret === null ? '' : base32(secret);
  const uri = secret === null ? '' : otpauthUri(secret, issuer, account);
  return (
    <Card
      title="Two-factor authentication"
      description="After your password, e-mail code, passkey or provider, you also type a code from an authenticator app."
      actions={
        <span data-testid={T.mfaStatus} data-state={on ? 'on' : 'off'}>
          {on ? <Badge tone="good">on</Badge> : <Badge>off</Badge>}
        </span>
      }
    >
      <div className="stack">
        {note && <Success>{note}</Success>}
        <ErrorText error={disable.error} />
        {on && (
          <div className="row">
            <Button
              variant="danger"
              busy={disable.busy}
              onClick={() => (setNote(null), void disable.run())}
              testid={T.mfaDisable}
            >
              Turn off two-factor
            </Button>
          </div>
        )}
        {!on && secret === null && (
          <div className="row">
            <Button
              variant="primary"
              onClick={() => {
                setNote(null);
                setSecret(randomSecret());
              }}
              testid={T.mfaSetupStart}
            >
              Set up an authenticator app
            </Button>
          </div>
        )}
        {!on && secret !== null && (
          <form className="mfa-setup" onSubmit={(e) => void onEnable(e)} noValidate>
            <QrCode text={uri} label="QR code to scan with your authenticator app" testid={T.mfaQr} />
            <div className="stack">
              <ol className="steps">
                <li>Scan the code with an authenticator app (1Password, Google Authenticator, Authy…).</li>
                <li>
                  Can’t scan? Type this key instead:
                  <code className="secret" data-testid={T.mfaSecret} data-secret={text}>
                    {groupSecret(text)}
                  </code>
                </li>
                <li>Type the 6-digit code the app shows.</li>
              </ol>
              <details className="small muted">
                <summary>Setup link</summary>
                <code className="wrap-anywhere" data-testid={T.mfaUri}>
                  {uri}
                </code>
              </details>
              <Field label="Code from the app" problem={problem}>
                <TotpCodeInput value={code} onChange={setCode} testid={T.mfaSetupCode} />
              </Field>
              <ErrorText error={enable.error} />
              <div className="row">
                <Button type="submit" variant="primary" busy={enable.busy} testid={T.mfaSetupEnable}>
                  Turn on two-factor
                </Button>
                <Button
                  variant="ghost"
                  onClick={() => setSecret(null)}
                  disabled={enable.busy}
                  testid={T.mfaSetupCancel}
                >
                  Cancel
                </Button>
              </div>
            </div>
          </form>
        )}
      </div>
    </Card>
  );
}
