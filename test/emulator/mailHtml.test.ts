/**
 * The e-mails' HTML: one paragraph per block of the text, and the one-time code of a sign-in e-mail in a paragraph of
 * its own, where the service's e-mail has it (tests written against the service read it from there).
 */
import { describe, expect, it } from 'vitest';
import { api, APP, latestMail } from '../support/authFlows.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';

const emulator = useEmulator({ unknownEmailDelayMillis: 0 });

describe('e-mail HTML', () => {
  it('the sign-in e-mail shows its code alone in a paragraph', async () => {
    const em = emulator();
    const email = uniqueEmail('code');
    const sent = await api(em, 'POST', '/auth/otp/send-sign-in-code', {
      body: { email, callback_url: `${APP}/handler/magic-link-callback` },
    });
    const { nonce } = sent.body as { nonce: string };
    const mail = await latestMail(em, email);
    const code = /<p>([A-Z0-9]{6})<\/p>/.exec(mail.html)?.[1];
    expect(code).toHaveLength(6);
    // The code and the nonce make the 45-character code the sign-in takes.
    const signedIn = await api(em, 'POST', '/auth/otp/sign-in', { body: { code: `${code!.toLowerCase()}${nonce}` } });
    expect(signedIn.status).toBe(200);
    expect(mail.html.match(/<p>/g)!.length).toBeGreaterThan(2);
  });
});
