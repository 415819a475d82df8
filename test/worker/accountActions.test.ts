import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import type { MailboxItem } from '../../emulator/mailbox.js';
import { InvalidArgumentError } from '../../protocol/errors/errors.js';
import type { ContactChannelModel, SessionInfo, TabHandlerUrls, Team, User } from '../../worker/index.js';
import { useBrokerScope } from '../support/brokerScope.js';
import { demoServerApp, uniqueEmail, useEmulator } from '../support/emulator.js';
import type { SimulatedTab } from '../support/tabs.js';

/**
 * The account actions a tab calls, through a broker and simulated tabs against the emulator: what
 * the person sees in every tab afterwards, and the e-mails the service sends.
 */
const emulator = useEmulator();
const PASSWORD = 'a-long-password';

/** A tab's handler pages, as authbroker/client sends them in its hello. */
function handlerUrlsOf(origin: string): TabHandlerUrls {
  return {
    emailVerification: `${origin}/handler/email-verification`,
    passwordReset: `${origin}/handler/password-reset`,
    magicLinkCallback: `${origin}/handler/magic-link-callback`,
    teamInvitation: `${origin}/handler/team-invitation`,
  };
}
const APP = 'http://localhost:5173';
const OTHER_APP = 'http://localhost:3000';

const scope = useBrokerScope(emulator);

/** A broker and `count` tabs, each knowing its handler pages (on `origin`), like real tabs. */
async function start(count: number, origin = APP): Promise<SimulatedTab[]> {
  const started = await scope.start();
  return Promise.all(Array.from({ length: count }, () => scope.tab(started, { handlerUrls: handlerUrlsOf(origin) })));
}

const server = () => demoServerApp(emulator());

/** Signs a fresh person up in `tab`; returns their e-mail and id. */
async function signUp(tab: SimulatedTab, prefix = 'person'): Promise<{ email: string; userId: string }> {
  const email = uniqueEmail(prefix);
  const result = await tab.api.signUpWithPassword({ email, password: PASSWORD });
  if (result.status !== 'signed-in') throw new Error('sign-up did not complete');
  return { email, userId: result.userId };
}

/** The newest e-mail of a template to an address. */
function latestMail(to: string, template: MailboxItem['template']): MailboxItem {
  const mail = emulator()
    .env.mailbox.list(to)
    .filter((m) => m.template === template)
    .at(-1);
  if (mail === undefined) throw new Error(`no ${template} e-mail to ${to}`);
  return mail;
}

/**
 * A contact-channel snapshot's list; empty while pending (a sign-in moves subscriptions to the new session's entries).
 */
const channelsIn = (s: { data: unknown }) => (s.data as ContactChannelModel[] | undefined) ?? [];
const codeOf = (mail: MailboxItem) => new URL(mail.link!).searchParams.get('code')!;
const success = (s: { status: string }) => s.status === 'success';

describe('callback URLs default to the calling tab’s handler pages; an explicit one wins', () => {
  it('sign-up verification, magic link, password reset, contact-channel verification and team invitation', async () => {
    const [a] = await start(1);
    const { email } = await signUp(a!, 'callbacks');
    expect(latestMail(email, 'email_verification').link).toMatch(
      new RegExp(`^${APP}/handler/email-verification\\?code=`),
    );

    // (A magic link to an address not yet verified is refused, as the service does: a new one.)
    const newcomer = uniqueEmail('magic');
    await a!.api.sendMagicLink({ email: newcomer });
    expect(latestMail(newcomer, 'magic_link').link).toMatch(new RegExp(`^${APP}/handler/magic-link-callback\\?code=`));
    await a!.api.sendMagicLink({ email: newcomer, callbackUrl: `${OTHER_APP}/auth/magic` });
    expect(latestMail(newcomer, 'magic_link').link).toMatch(new RegExp(`^${OTHER_APP}/auth/magic\\?code=`));

    await a!.api.sendPasswordResetEmail({ email });
    expect(latestMail(email, 'password_reset').link).toMatch(new RegExp(`^${APP}/handler/password-reset\\?code=`));
    await a!.api.sendPasswordResetEmail({ email, callbackUrl: `${OTHER_APP}/reset` });
    expect(latestMail(email, 'password_reset').link).toMatch(new RegExp(`^${OTHER_APP}/reset\\?code=`));

    const extra = uniqueEmail('second-address');
    const channel = await a!.api.createContactChannel({ email: extra, usedForAuth: false });
    await a!.api.sendContactChannelVerification(channel.id);
    expect(latestMail(extra, 'email_verification').link).toMatch(
      new RegExp(`^${APP}/handler/email-verification\\?code=`),
    );
    await a!.api.sendContactChannelVerification(channel.id, `${OTHER_APP}/verify`);
    expect(latestMail(extra, 'email_verification').link).toMatch(new RegExp(`^${OTHER_APP}/verify\\?code=`));

    const team = await a!.api.createTeam({ displayName: 'Callback team' });
    const invitee = uniqueEmail('invitee');
    await a!.api.inviteToTeam({ teamId: team.id, email: invitee });
    expect(latestMail(invitee, 'team_invitation').link).toMatch(new RegExp(`^${APP}/handler/team-invitation\\?code=`));
    await a!.api.inviteToTeam({ teamId: team.id, email: invitee, callbackUrl: `${OTHER_APP}/join` });
    expect(latestMail(invitee, 'team_invitation').link).toMatch(new RegExp(`^${OTHER_APP}/join\\?code=`));

    const explicit = uniqueEmail('explicit');
    await a!.api.signOut();
    await a!.api.signUpWithPassword({
      email: explicit,
      password: PASSWORD,
      verificationCallbackUrl: `${OTHER_APP}/verify-sign-up`,
    });
    expect(latestMail(explicit, 'email_verification').link).toMatch(new RegExp(`^${OTHER_APP}/verify-sign-up\\?code=`));
  });

  it('each tab gets its own pages; a connection that names none must pass the URL (a typed error otherwise)', async () => {
    const started = await scope.start();
    const here = await scope.tab(started, { handlerUrls: handlerUrlsOf(APP) });
    const there = await scope.tab(started, { handlerUrls: handlerUrlsOf(OTHER_APP) });
    const bare = await scope.tab(started);
    const email = uniqueEmail('per-tab');
    await server().createUser({ primaryEmail: email, primaryEmailAuthEnabled: true, password: PASSWORD });
    await here.api.sendPasswordResetEmail({ email });
    expect(latestMail(email, 'password_reset').link!.startsWith(`${APP}/`)).toBe(true);
    await there.api.sendPasswordResetEmail({ email });
    expect(latestMail(email, 'password_reset').link!.startsWith(`${OTHER_APP}/`)).toBe(true);
    const refused = await bare.api.sendPasswordResetEmail({ email }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidArgumentError);
    expect(refused).toMatchObject({ code: 'INVALID_ARGUMENT', argument: 'callbackUrl' });
  });
});

describe('password reset by e-mail', () => {
  it('send, check the code, reset: the new password signs in, the old one and the used code do not', async () => {
    const [a] = await start(1);
    const email = uniqueEmail('forgot');
    await server().createUser({ primaryEmail: email, primaryEmailAuthEnabled: true, password: 'the-old-password' });
    await a!.api.sendPasswordResetEmail({ email });
    const code = codeOf(latestMail(email, 'password_reset'));

    await expect(a!.api.checkPasswordResetCode('x'.repeat(45))).rejects.toMatchObject({
      name: 'KnownError',
      code: 'VERIFICATION_CODE_NOT_FOUND',
    });
    await expect(a!.api.checkPasswordResetCode(code)).resolves.toBeUndefined();
    // Checking does not use the code up.
    await a!.api.resetPassword({ code, password: 'the-new-password' });
    await expect(a!.api.resetPassword({ code, password: 'yet-another-password' })).rejects.toMatchObject({
      code: 'VERIFICATION_CODE_ALREADY_USED',
    });
    await expect(a!.api.checkPasswordResetCode(code)).rejects.toMatchObject({ code: 'VERIFICATION_CODE_ALREADY_USED' });

    await expect(a!.api.signInWithPassword({ email, password: 'the-old-password' })).rejects.toMatchObject({
      code: 'EMAIL_PASSWORD_MISMATCH',
    });
    expect(await a!.api.signInWithPassword({ email, password: 'the-new-password' })).toMatchObject({
      status: 'signed-in',
    });
  });

  it('a password too short is refused with its known error, and the code stays usable', async () => {
    const [a] = await start(1);
    const email = uniqueEmail('short');
    await server().createUser({ primaryEmail: email, primaryEmailAuthEnabled: true, password: PASSWORD });
    await a!.api.sendPasswordResetEmail({ email });
    const code = codeOf(latestMail(email, 'password_reset'));
    await expect(a!.api.resetPassword({ code, password: 'short' })).rejects.toMatchObject({
      code: 'PASSWORD_TOO_SHORT',
    });
    await expect(a!.api.checkPasswordResetCode(code)).resolves.toBeUndefined();
  });
});

describe('contact channels', () => {
  it('add, verify by e-mail, make primary, stop using for sign-in, remove: every tab follows', async () => {
    const [a, b] = await start(2);
    const { email } = await signUp(a!, 'channels');
    await b!.subscribe('channels', { kind: 'contactChannels' });
    await b!.subscribe('user', { kind: 'currentUser' });
    await b!.waitFor('channels', success);

    const extra = uniqueEmail('work');
    const channel = await a!.api.createContactChannel({ email: extra, usedForAuth: true });
    expect(channel).toMatchObject({ value: extra, isVerified: false, usedForAuth: true, isPrimary: false });
    await b!.waitFor('channels', (s) => channelsIn(s).some((c) => c.id === channel.id));

    await a!.api.sendContactChannelVerification(channel.id);
    const code = codeOf(latestMail(extra, 'email_verification'));
    await expect(a!.api.checkEmailVerificationCode(code)).resolves.toBeUndefined();
    await a!.api.verifyEmail(code);
    await b!.waitFor('channels', (s) => channelsIn(s).find((c) => c.id === channel.id)?.isVerified === true);
    await expect(a!.api.verifyEmail(code)).rejects.toMatchObject({ code: 'VERIFICATION_CODE_ALREADY_USED' });

    // Primary: the user's primary e-mail changes with it, in the other tab too.
    const primary = await a!.api.updateContactChannel(channel.id, { isPrimary: true });
    expect(primary.isPrimary).toBe(true);
    await b!.waitFor('user', (s) => (s.data as User | null)?.primaryEmail === extra);
    const channels = (
      await b!.waitFor('channels', (s) => channelsIn(s).find((c) => c.value === email)?.isPrimary === false)
    ).data as ContactChannelModel[];
    expect(channels.filter((c) => c.isPrimary).map((c) => c.value)).toEqual([extra]);

    // The address now signs in; no longer used for sign-in, it does not.
    expect(await a!.api.signInWithPassword({ email: extra, password: PASSWORD })).toMatchObject({
      status: 'signed-in',
    });
    const notForAuth = await a!.api.updateContactChannel(channel.id, { usedForAuth: false });
    expect(notForAuth.usedForAuth).toBe(false);
    await b!.waitFor('channels', (s) => channelsIn(s).find((c) => c.id === channel.id)?.usedForAuth === false);
    await expect(a!.api.signInWithPassword({ email: extra, password: PASSWORD })).rejects.toMatchObject({
      name: 'KnownError',
      code: 'EMAIL_PASSWORD_MISMATCH',
    });

    // A changed address is unverified again.
    const renamed = uniqueEmail('renamed');
    expect(await a!.api.updateContactChannel(channel.id, { email: renamed })).toMatchObject({
      value: renamed,
      isVerified: false,
    });

    await a!.api.deleteContactChannel(channel.id);
    await b!.waitFor('channels', (s) => success(s) && !channelsIn(s).some((c) => c.id === channel.id));
  });
});

describe('the account itself', () => {
  it('deleteUser signs every tab out with the reason user-deleted; the account is gone', async () => {
    const [a, b] = await start(2);
    const { email, userId } = await signUp(a!, 'leaving');
    await b!.subscribe('session', { kind: 'session' });
    await b!.subscribe('user', { kind: 'currentUser' });
    await b!.waitFor('user', (s) => (s.data as User | null)?.id === userId);

    await a!.api.deleteUser();
    const ended = (await b!.waitFor('session', (s) => (s.data as SessionInfo).status === 'signed-out'))
      .data as SessionInfo;
    expect(ended).toMatchObject({ status: 'signed-out', lastEnd: { reason: 'user-deleted' } });
    await b!.waitFor('user', (s) => s.data === null);
    expect(await b!.api.getAccessToken()).toBeNull();
    await expect(a!.api.signInWithPassword({ email, password: PASSWORD })).rejects.toMatchObject({
      name: 'KnownError',
      code: 'EMAIL_PASSWORD_MISMATCH',
    });
    await expect(server().getUser(userId)).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
  });

  it('setSelectedTeam(teamId) and setSelectedTeam(null); a team the user is not in is refused', async () => {
    const [a, b] = await start(2);
    const { userId } = await signUp(a!, 'selecting');
    const team = await a!.api.createTeam({ displayName: 'Chosen' });
    await b!.subscribe('user', { kind: 'currentUser' });
    const chosen = await a!.api.setSelectedTeam(team.id);
    expect(chosen).toMatchObject({
      id: userId,
      selectedTeamId: team.id,
      selectedTeam: { id: team.id, displayName: 'Chosen' },
    });
    await b!.waitFor('user', (s) => (s.data as User | null)?.selectedTeamId === team.id);
    expect((await a!.api.setSelectedTeam(null)).selectedTeamId).toBeNull();
    await b!.waitFor('user', (s) => (s.data as User | null)?.selectedTeamId === null);
    const stranger = await server().createTeam({ displayName: 'Not mine' });
    await expect(a!.api.setSelectedTeam(stranger.id)).rejects.toMatchObject({ code: 'TEAM_MEMBERSHIP_NOT_FOUND' });
  });

  it('updateUser({ totpSecret }) takes the raw bytes: the next sign-in asks for the code they generate; null turns it off', async () => {
    const em = emulator();
    const [a] = await start(1);
    const { email } = await signUp(a!, 'totp');
    const secret = new Uint8Array(randomBytes(20));
    const enabled = await a!.api.updateUser({ totpSecret: secret });
    expect(enabled).not.toHaveProperty('totpSecret');
    await a!.api.signOut();

    const first = await a!.api.signInWithPassword({ email, password: PASSWORD });
    if (first.status !== 'mfa-required') throw new Error(`expected an MFA challenge, got ${first.status}`);
    const totp = TOTP.generate({
      secret: new Secret({ buffer: secret.buffer }),
      algorithm: 'SHA1',
      digits: 6,
      period: 30,
      timestamp: em.env.clock.now(),
    });
    expect(await a!.api.signInWithMfa({ attemptCode: first.attemptCode, totp })).toMatchObject({ status: 'signed-in' });

    await a!.api.updateUser({ totpSecret: null });
    await a!.api.signOut();
    expect(await a!.api.signInWithPassword({ email, password: PASSWORD })).toMatchObject({ status: 'signed-in' });
    await expect(a!.api.updateUser({ totpSecret: 'SECRETBASE32' as unknown as Uint8Array })).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
  });

  it('setPassword for an account without one, then updatePassword with the old one', async () => {
    const [a] = await start(1);
    const email = uniqueEmail('passwordless');
    await server().createUser({ primaryEmail: email, primaryEmailVerified: true, primaryEmailAuthEnabled: true });
    await a!.api.sendMagicLink({ email });
    await a!.api.signInWithMagicLink(codeOf(latestMail(email, 'magic_link')));
    await a!.api.setPassword({ password: 'first-password' });
    expect((await a!.api.read({ kind: 'currentUser' }))?.hasPassword).toBe(true);
    await expect(
      a!.api.updatePassword({ oldPassword: 'wrong-password', newPassword: 'second-password' }),
    ).rejects.toMatchObject({ code: 'PASSWORD_CONFIRMATION_MISMATCH' });
    await a!.api.updatePassword({ oldPassword: 'first-password', newPassword: 'second-password' });
    await a!.api.signOut();
    expect(await a!.api.signInWithPassword({ email, password: 'second-password' })).toMatchObject({
      status: 'signed-in',
    });
  });
});

describe('teams', () => {
  it('leaveTeam: the team leaves every tab’s list, and reading it is refused', async () => {
    const [a, b] = await start(2);
    const { userId } = await signUp(a!, 'member');
    const team = await server().createTeam({ displayName: 'To leave' });
    await server().addTeamMember(team.id, userId);
    await b!.subscribe('teams', { kind: 'teams' });
    await b!.waitFor('teams', (s) => (s.data as Team[] | undefined)?.some((t) => t.id === team.id) === true);

    await a!.api.leaveTeam(team.id);
    await b!.waitFor('teams', (s) => success(s) && !(s.data as Team[]).some((t) => t.id === team.id));
    await expect(b!.api.read({ kind: 'team', teamId: team.id })).rejects.toMatchObject({
      code: 'TEAM_MEMBERSHIP_NOT_FOUND',
    });
    expect((await server().listTeamMemberProfiles({ teamId: team.id })).map((p) => p.userId)).not.toContain(userId);
  });

  it('updateTeam, updateTeamProfile, removeTeamMember, revokeTeamInvitation and deleteTeam show in the other tab', async () => {
    const [a, b] = await start(2);
    const { userId } = await signUp(a!, 'owner');
    const team = await a!.api.createTeam({ displayName: 'Workshop' });
    const other = await server().createUser({ primaryEmail: uniqueEmail('colleague') });
    await server().addTeamMember(team.id, other.id);
    for (const [id, query] of [
      ['team', { kind: 'team', teamId: team.id }],
      ['members', { kind: 'teamMembers', teamId: team.id }],
      ['profile', { kind: 'teamProfile', teamId: team.id }],
      ['invitations', { kind: 'teamInvitations', teamId: team.id }],
      ['teams', { kind: 'teams' }],
    ] as const) {
      await b!.subscribe(id, query);
      await b!.waitFor(id, success);
    }

    await a!.api.updateTeam(team.id, { displayName: 'Workshop, renamed' });
    await b!.waitFor('team', (s) => (s.data as Team).displayName === 'Workshop, renamed');
    await b!.waitFor('teams', (s) => (s.data as Team[]).some((t) => t.displayName === 'Workshop, renamed'));

    await a!.api.updateTeamProfile(team.id, { displayName: 'The owner' });
    await b!.waitFor('profile', (s) => (s.data as { displayName: string | null }).displayName === 'The owner');

    await a!.api.removeTeamMember(team.id, other.id);
    await b!.waitFor('members', (s) => (s.data as Array<{ userId: string }>).map((m) => m.userId).join() === userId);

    const { invitationId } = await a!.api.inviteToTeam({ teamId: team.id, email: uniqueEmail('maybe') });
    await b!.waitFor('invitations', (s) => (s.data as Array<{ id: string }>).some((i) => i.id === invitationId));
    await a!.api.revokeTeamInvitation({ teamId: team.id, invitationId });
    await b!.waitFor('invitations', (s) => (s.data as unknown[]).length === 0);

    await a!.api.deleteTeam(team.id);
    await b!.waitFor('teams', (s) => !(s.data as Team[]).some((t) => t.id === team.id));
    // A client is told it is no member of it (the service does not say whether the team exists).
    await b!.waitFor('team', (s) => s.status === 'error');
    expect(b!.latest('team')!.error).toMatchObject({ code: 'TEAM_MEMBERSHIP_NOT_FOUND' });
  });
});
