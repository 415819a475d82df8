import { useState, type FormEvent } from 'react';
import type { SignInResult } from '../../../../client/index.js';
import { useBrokerClient } from '../../../../client/react/index.js';
import { ErrorText } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Field } from '../../components/Field.js';
import { mailboxUrl } from '../../lib/config.js';
import { useAction } from '../../lib/useAction.js';
import { T } from '../../testids.js';

/**
 * Sign-in (or sign-up) by e-mail: the service sends a 6-character code and a link. The code is
 * typed here (with the nonce kept from sending); the link opens the magic-link handler page.
 */
export function MagicLinkForm({
  onResult,
  submitLabel = 'Send me a code',
}: {
  onResult: (result: SignInResult) => void;
  submitLabel?: string;
}) {
  const client = useBrokerClient();
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<{ email: string; nonce: string } | null>(null);
  const [otp, setOtp] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const send = useAction(async (to: string) => {
    const { nonce } = await client.sendMagicLink({ email: to }); // the link goes to this tab's magic-link page
    setSent({ email: to, nonce });
    setOtp('');
  });
  const verify = useAction(async () => {
    if (sent === null) return;
    onResult(await client.signInWithOtp({ otp: otp.trim(), nonce: sent.nonce }));
  });

  const onSend = (event: FormEvent) => {
    event.preventDefault();
    const to = email.trim();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/.test(to)) {
      setProblem('Type a valid e-mail address.');
      return;
    }
    setProblem(null);
    void send.run(to);
  };
  const onVerify = (event: FormEvent) => {
    event.preventDefault();
    if (!/^[0-9a-z]{6}$/i.test(otp.trim())) {
      setProblem('The code has 6 letters and digits.');
      return;
    }
    setProblem(null);
    void verify.run();
  };

  if (sent === null) {
    return (
      <form className="stack" onSubmit={onSend} data-testid={T.magicLinkForm} noValidate>
        <Field label="E-mail" problem={problem}>
          <input
            className="input"
            type="email"
            autoComplete="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            placeholder="you@example.com"
            data-testid={T.magicLinkEmail}
          />
        </Field>
        <ErrorText error={send.error} />
        <Button type="submit" variant="primary" size="large" busy={send.busy} testid={T.magicLinkSend}>
          {submitLabel}
        </Button>
        <p className="muted small">We e-mail you a 6-character code and a link. No password needed.</p>
      </form>
    );
  }
  const mailbox = mailboxUrl(sent.email);
  return (
    <form className="stack" onSubmit={onVerify} data-testid={T.otpForm} noValidate>
      <div className="sent-note" data-testid={T.magicLinkSent}>
        <strong>Check your inbox.</strong> We sent a code to <b>{sent.email}</b>. Type it below, or open the link in the
        e-mail.
        {mailbox && (
          <>
            {' '}
            <a href={mailbox} target="_blank" rel="noreferrer">
              Open the local mailbox ↗
            </a>
          </>
        )}
      </div>
      <Field label="Code from the e-mail" problem={problem}>
        <input
          className="input input-code"
          value={otp}
          onChange={(e) => setOtp(e.target.value.toUpperCase())}
          maxLength={6}
          autoComplete="one-time-code"
          autoCapitalize="characters"
          spellCheck={false}
          placeholder="ABC123"
          autoFocus
          data-testid={T.otpInput}
        />
      </Field>
      <ErrorText error={verify.error ?? send.error} />
      <Button type="submit" variant="primary" size="large" busy={verify.busy} testid={T.otpSubmit}>
        Sign in
      </Button>
      <div className="row between small">
        <Button variant="link" onClick={() => setSent(null)}>
          Use another e-mail
        </Button>
        <Button variant="link" busy={send.busy} onClick={() => void send.run(sent.email)}>
          Send a new code
        </Button>
      </div>
    </form>
  );
}
