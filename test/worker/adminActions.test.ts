import { describe, expect, it } from 'vitest';
import type {
  AdminProjectModel,
  ApiKey,
  EmailTemplateModel,
  PermissionDefinition,
  SentEmailModel,
} from '../../worker/index.js';
import { useBrokerScope } from '../support/brokerScope.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';
import type { SimulatedTab } from '../support/tabs.js';

/**
 * Every admin mutation through a broker and two simulated tabs: a project owner signs in once, acts
 * in one tab, and the other tab's admin queries follow (the project, its keys, templates,
 * permission definitions and e-mail log).
 */
const emulator = useEmulator();
const DAY = 24 * 60 * 60 * 1000;

const scope = useBrokerScope(emulator);

/** A broker, two tabs, and the seeded project owner signed in. */
async function owner(): Promise<[SimulatedTab, SimulatedTab]> {
  const [a, b] = (await scope.startWithTabs(2)).tabs as [SimulatedTab, SimulatedTab];
  const result = await a.api.adminSignInWithPassword({ email: 'admin@authbroker.dev', password: 'admin-password' });
  if (result.status !== 'signed-in') throw new Error('admin sign-in did not complete');
  return [a, b];
}

const success = (s: { status: string }) => s.status === 'success';

describe('projects', () => {
  it('adminCreateProject, adminUpdateProject (camelCase in and out, nested config too) and adminDeleteProject', async () => {
    const [a, b] = await owner();
    await b.subscribe('owned', { kind: 'admin.ownedProjects' });
    await b.waitFor('owned', success);

    const created = await a.api.adminCreateProject({
      displayName: 'Side project',
      description: 'made in a test',
      config: { signUpEnabled: false, magicLinkEnabled: true },
    });
    expect(created).toMatchObject({
      displayName: 'Side project',
      description: 'made in a test',
      config: { signUpEnabled: false, magicLinkEnabled: true },
    });
    expect(created).not.toHaveProperty('display_name');
    await b.waitFor('owned', (s) => (s.data as AdminProjectModel[]).some((p) => p.id === created.id));

    const projectId = created.id;
    await b.subscribe('project', { kind: 'admin.project', projectId });
    await b.waitFor('project', success);
    const updated = await a.api.adminUpdateProject(
      {
        displayName: 'Side project, renamed',
        description: 'still a test',
        config: {
          signUpEnabled: true,
          clientTeamCreationEnabled: true,
          domains: [{ domain: 'https://side.example.com', handlerPath: '/handler' }],
          emailConfig: {
            type: 'standard',
            host: 'smtp.example.com',
            port: 587,
            username: 'mailer',
            password: 'mail-password',
            senderName: 'Side',
            senderEmail: 'noreply@side.example.com',
          },
        },
      },
      { projectId },
    );
    expect(updated).toMatchObject({
      displayName: 'Side project, renamed',
      config: {
        signUpEnabled: true,
        clientTeamCreationEnabled: true,
        domains: [{ domain: 'https://side.example.com', handlerPath: '/handler' }],
        emailConfig: {
          type: 'standard',
          host: 'smtp.example.com',
          senderName: 'Side',
          senderEmail: 'noreply@side.example.com',
        },
      },
    });
    expect(JSON.stringify(updated)).not.toMatch(/"[a-z]+_[a-z_]+":/);
    await b.waitFor('project', (s) => (s.data as AdminProjectModel).displayName === 'Side project, renamed');
    await b.waitFor('owned', (s) =>
      (s.data as AdminProjectModel[]).some((p) => p.displayName === 'Side project, renamed'),
    );

    await a.api.adminDeleteProject({ projectId });
    await b.waitFor('owned', (s) => !(s.data as AdminProjectModel[]).some((p) => p.id === projectId));
    // Gone: the service says the project id is unknown.
    await expect(a.api.read({ kind: 'admin.project', projectId })).rejects.toMatchObject({
      name: 'KnownError',
      code: 'CURRENT_PROJECT_NOT_FOUND',
    });
    // The broker's own project is untouched.
    expect((await a.api.read({ kind: 'admin.project' })).id).toBe(emulator().projects.demo.id);
  });
});

describe('API keys', () => {
  it('create, read one, edit its description, revoke: the other tab’s key and list follow', async () => {
    const [a, b] = await owner();
    const projectId = emulator().projects.demo.id;
    const created = await a.api.adminCreateApiKey(
      {
        description: 'CI server',
        expiresAtMillis: emulator().env.clock.now() + 30 * DAY,
        hasPublishableClientKey: false,
        hasSecretServerKey: true,
        hasSuperSecretAdminKey: false,
      },
      { projectId },
    );
    expect(created.secretServerKey).toMatch(/^ssk_/);

    await b.subscribe('key', { kind: 'admin.apiKey', apiKeyId: created.id, projectId });
    await b.subscribe('keys', { kind: 'admin.apiKeys', projectId });
    const first = (await b.waitFor('key', success)).data as ApiKey;
    expect(first).toMatchObject({
      id: created.id,
      description: 'CI server',
      secretServerKey: { lastFour: created.secretServerKey!.slice(-4) },
    });
    // One key read back never carries its secret.
    expect(JSON.stringify(first)).not.toContain(created.secretServerKey!);

    const edited = await a.api.adminUpdateApiKey(created.id, { description: 'CI server (staging)' }, { projectId });
    expect(edited.description).toBe('CI server (staging)');
    await b.waitFor('key', (s) => (s.data as ApiKey).description === 'CI server (staging)');
    await b.waitFor('keys', (s) =>
      (s.data as ApiKey[]).some((k) => k.id === created.id && k.description === 'CI server (staging)'),
    );

    const revoked = await a.api.adminRevokeApiKey(created.id, { projectId });
    expect(revoked.manuallyRevokedAtMillis).toEqual(expect.any(Number));
    await b.waitFor('key', (s) => (s.data as ApiKey).manuallyRevokedAtMillis !== undefined);
    await expect(
      a.api.adminUpdateApiKey('00000000-0000-4000-8000-000000000000', { description: 'x' }),
    ).rejects.toMatchObject({ name: 'KnownError', code: 'API_KEY_NOT_FOUND' });
  });
});

describe('e-mail templates, test e-mail, webhooks', () => {
  it('a template edited (subject and document) and reset; a test e-mail sent and logged; a Svix token', async () => {
    const [a, b] = await owner();
    await b.subscribe('templates', { kind: 'admin.emailTemplates' });
    await b.waitFor('templates', success);
    const document = {
      root: { type: 'EmailLayout', data: { childrenIds: ['hello', 'go'] } },
      hello: { type: 'Text', data: { props: { text: 'Choose a new password, {{ userDisplayName }}.' } } },
      go: { type: 'Button', data: { props: { text: 'Reset', url: '{{ passwordResetLink }}' } } },
    };
    const edited = await a.api.adminUpdateEmailTemplate('password_reset', {
      subject: 'Your reset link',
      content: document,
    });
    expect(edited).toEqual({ type: 'password_reset', subject: 'Your reset link', content: document, isDefault: false });
    const template = (t: unknown) => (t as EmailTemplateModel[]).find((x) => x.type === 'password_reset')!;
    await b.waitFor('templates', (s) => template(s.data).subject === 'Your reset link');
    expect(template(b.latest('templates')!.data).content).toEqual(document);

    await a.api.adminResetEmailTemplate('password_reset');
    await b.waitFor('templates', (s) => template(s.data).isDefault);

    await b.subscribe('sent', { kind: 'admin.sentEmails' });
    await b.waitFor('sent', success);
    const recipient = uniqueEmail('smtp-check');
    const config = {
      host: 'smtp.example.com',
      port: 587,
      username: 'mailer',
      password: 'mail-password',
      senderName: 'Demo',
      senderEmail: 'noreply@example.com',
    };
    expect(await a.api.adminSendTestEmail({ recipientEmail: recipient, emailConfig: config })).toEqual({
      success: true,
    });
    await b.waitFor('sent', (s) => (s.data as SentEmailModel[]).some((m) => m.to.includes(recipient)));
    expect(emulator().env.mailbox.list(recipient)).toHaveLength(1);
    // An SMTP failure is an answer, not an error.
    const failed = await a.api.adminSendTestEmail({ recipientEmail: recipient, emailConfig: { ...config, port: 0 } });
    expect(failed).toEqual({ success: false, errorMessage: expect.stringMatching(/^Failed to connect/) });

    expect((await a.api.adminCreateSvixToken()).token).toEqual(expect.any(String));
  });
});

describe('permission definitions', () => {
  it('create (containing another), update, delete: the other tab’s list follows', async () => {
    const [a, b] = await owner();
    await b.subscribe('definitions', { kind: 'admin.permissionDefinitions' });
    await b.waitFor('definitions', success);
    const suffix = Math.random().toString(36).slice(2, 8);
    const read = await a.api.adminCreatePermissionDefinition({
      id: `read_docs_${suffix}`,
      description: 'Read the docs',
    });
    const write = await a.api.adminCreatePermissionDefinition({
      id: `write_docs_${suffix}`,
      containedPermissionIds: [read.id],
    });
    expect(write.containedPermissionIds).toEqual([read.id]);
    const byId = (s: { data: unknown }, id: string) => (s.data as PermissionDefinition[]).find((d) => d.id === id);
    await b.waitFor('definitions', (s) => byId(s, write.id) !== undefined);

    const renamed = await a.api.adminUpdatePermissionDefinition(write.id, {
      id: `edit_docs_${suffix}`,
      description: 'Edit the docs',
    });
    expect(renamed).toMatchObject({
      id: `edit_docs_${suffix}`,
      description: 'Edit the docs',
      containedPermissionIds: [read.id],
    });
    await b.waitFor(
      'definitions',
      (s) => byId(s, renamed.id)?.description === 'Edit the docs' && byId(s, write.id) === undefined,
    );

    await a.api.adminDeletePermissionDefinition(renamed.id);
    await b.waitFor('definitions', (s) => byId(s, renamed.id) === undefined);
    await expect(a.api.adminDeletePermissionDefinition(renamed.id)).rejects.toMatchObject({
      name: 'KnownError',
      code: 'PERMISSION_NOT_FOUND',
    });
  });
});
