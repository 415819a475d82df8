import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../emulator/index.js';
import { api, signUp } from '../support/authFlows.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';

/** The emulator's mailbox under Inbucket's REST API v1 (`inbucketPort`), as Stack Auth's own test suite reads it. */

const emulator = useEmulator({ inbucketPort: 0 });

async function inbucket(path: string, init: RequestInit = {}): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${emulator().inbucketUrl}${path}`, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // a plain-text answer
  }
  return { status: response.status, body };
}

async function sendSignInCode(email: string): Promise<void> {
  const sent = await api(emulator(), 'POST', '/auth/otp/send-sign-in-code', {
    body: { email, callback_url: 'http://localhost:5173/handler/magic-link-callback' },
  });
  expect(sent.status, sent.text).toBe(200);
}

describe('Inbucket-compatible mailbox API', () => {
  it('is served on its own port only when asked', async () => {
    expect(emulator().inbucketUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(emulator().inbucketUrl).not.toBe(emulator().url);
    const plain = await startEmulator({ port: 0 });
    try {
      expect(plain.inbucketUrl).toBeNull();
    } finally {
      await plain.stop();
    }
  });

  it('lists a mailbox by the local part of the address, oldest first, with the headers Inbucket gives', async () => {
    const local = `ada-${Date.now().toString(36)}`;
    await sendSignInCode(`${local}@example.com`);
    await sendSignInCode(`${local.toUpperCase()}+tag@example.org`);
    const listed = await inbucket(`/api/v1/mailbox/${local}`);
    expect(listed.status).toBe(200);
    const items = listed.body as Record<string, unknown>[];
    expect(items).toHaveLength(2);
    expect(items[0]).toEqual({
      mailbox: local,
      id: expect.any(String),
      from: 'Authbroker Demo <noreply@authbroker.dev>',
      to: [`<${local}@example.com>`],
      subject: expect.stringMatching(/^Sign in to Authbroker Demo: Your code is [0-9A-Z]{6}$/),
      date: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      'posix-millis': expect.any(Number),
      size: expect.any(Number),
      seen: false,
    });
    expect(items[1]!.to).toEqual([`<${local.toUpperCase()}+tag@example.org>`]);
    expect((await inbucket(`/api/v1/mailbox/${local.toUpperCase()}`)).body).toHaveLength(2);
    expect((await inbucket('/api/v1/mailbox/nobody-here')).body).toEqual([]);
  });

  it('shows one message with its body and marks it seen', async () => {
    const email = uniqueEmail('reader');
    await sendSignInCode(email);
    const name = email.split('@')[0]!;
    const [header] = (await inbucket(`/api/v1/mailbox/${name}`)).body as { id: string }[];
    const shown = await inbucket(`/api/v1/mailbox/${name}/${header!.id}`);
    expect(shown.status).toBe(200);
    const message = shown.body as { body: { text: string; html: string }; header: Record<string, string[]> };
    expect(message).toMatchObject({ id: header!.id, mailbox: name, seen: false, attachments: [] });
    expect(message.body.text).toMatch(/Your sign-in code for Authbroker Demo is [0-9A-Z]{6}/);
    expect(message.body.html).toContain('<a href="http://localhost:5173/handler/magic-link-callback?code=');
    expect(message.header.To).toEqual([email]);
    expect(((await inbucket(`/api/v1/mailbox/${name}`)).body as { seen: boolean }[])[0]!.seen).toBe(true);
    expect((await inbucket(`/api/v1/mailbox/${name}/no-such-id`)).status).toBe(404);
  });

  it('deletes one message or empties a mailbox, and leaves the others', async () => {
    const first = uniqueEmail('purge');
    const other = uniqueEmail('kept');
    await sendSignInCode(first);
    await sendSignInCode(first);
    await sendSignInCode(other);
    const name = first.split('@')[0]!;
    const [one] = (await inbucket(`/api/v1/mailbox/${name}`)).body as { id: string }[];
    expect(await inbucket(`/api/v1/mailbox/${name}/${one!.id}`, { method: 'DELETE' })).toEqual({
      status: 200,
      body: 'OK',
    });
    expect((await inbucket(`/api/v1/mailbox/${name}`)).body).toHaveLength(1);
    expect((await inbucket(`/api/v1/mailbox/${name}`, { method: 'DELETE' })).status).toBe(200);
    expect((await inbucket(`/api/v1/mailbox/${name}`)).body).toEqual([]);
    expect((await inbucket(`/api/v1/mailbox/${other.split('@')[0]!}`)).body).toHaveLength(1);
  });

  it('holds every e-mail the emulator sends, such as the verification of a sign-up', async () => {
    const user = await signUp(emulator());
    const items = (await inbucket(`/api/v1/mailbox/${user.email.split('@')[0]!}`)).body as { subject: string }[];
    expect(items.map((item) => item.subject)).toEqual(['Verify your email at Authbroker Demo']);
  });

  it('answers nothing else, and no page of another origin', async () => {
    expect((await inbucket('/api/v1/mailboxes')).status).toBe(404);
    expect((await inbucket('/api/v1/mailbox/x', { method: 'PUT' })).status).toBe(405);
    const foreign = await inbucket('/api/v1/mailbox/x', { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
  });
});
