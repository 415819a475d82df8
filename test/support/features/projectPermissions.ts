/**
 * Project permissions (permissions of the whole project, outside any team), as scenarios over a
 * target (see ../scenarioKit.ts): definitions by an admin, grants by the server, the user's own list, and
 * the broker's `projectPermissions` query.
 */
import { expect } from 'vitest';
import * as endpoints from '../../../protocol/endpoints/index.js';
import { HttpStatusError } from '../../../protocol/errors/errors.js';
import type { ProjectPermissionModel } from '../../../worker/index.js';
import {
  adminApp,
  brokerFor,
  clientTransport,
  failureOf,
  knownCodeOf,
  PASSWORD,
  rawCall,
  serverApp,
  uniqueEmail,
  uniqueId,
} from '../scenarioKit.js';
import type { ServiceTarget } from '../serviceTarget.js';

/** Two definitions, `manage` containing `read`, with ids no other scenario uses. */
async function defineTwo(target: ServiceTarget): Promise<{ read: string; manage: string }> {
  const suffix = uniqueId();
  const read = `read_reports_${suffix}`;
  const manage = `manage_reports_${suffix}`;
  const admin = adminApp(target);
  await admin.createProjectPermissionDefinition({ id: read, description: 'Read reports' });
  await admin.createProjectPermissionDefinition({ id: manage, containedPermissionIds: [read] });
  return { read, manage };
}

/** A user with a session: its id and access token. */
async function signedUpUser(target: ServiceTarget): Promise<{ userId: string; accessToken: string; email: string }> {
  const email = uniqueEmail('permissions');
  const tokens = await endpoints.signUpWithPassword(clientTransport(target), {
    email,
    password: PASSWORD,
    verification_callback_url: 'http://localhost:5173/handler/email-verification',
  });
  return { userId: tokens.user_id, accessToken: tokens.access_token, email };
}

const ids = (permissions: Array<{ id: string }>) => permissions.map((p) => p.id).sort();

/** An admin defines project permissions: one set of ids, contained ids checked, a description only when given. */
export async function adminDefinesProjectPermissions(target: ServiceTarget): Promise<void> {
  const admin = adminApp(target);
  const { read, manage } = await defineTwo(target);
  const listed = await admin.listProjectPermissionDefinitions();
  expect(listed.find((d) => d.id === read)).toEqual({
    id: read,
    description: 'Read reports',
    containedPermissionIds: [],
  });
  expect(listed.find((d) => d.id === manage)).toEqual({ id: manage, containedPermissionIds: [read] });

  expect(knownCodeOf(await failureOf(admin.createProjectPermissionDefinition({ id: read })))).toBe(
    'PERMISSION_ID_ALREADY_EXISTS',
  );
  expect(
    knownCodeOf(
      await failureOf(
        admin.createProjectPermissionDefinition({
          id: `x_${uniqueId()}`,
          containedPermissionIds: ['no_such_permission'],
        }),
      ),
    ),
  ).toBe('CONTAINED_PERMISSION_NOT_FOUND');
  // Team system permissions are not project permissions.
  expect(
    knownCodeOf(
      await failureOf(
        admin.createProjectPermissionDefinition({ id: `y_${uniqueId()}`, containedPermissionIds: ['$read_members'] }),
      ),
    ),
  ).toBe('CONTAINED_PERMISSION_NOT_FOUND');
  expect(knownCodeOf(await failureOf(admin.createProjectPermissionDefinition({ id: '$not_custom' })))).toBe(
    'SCHEMA_ERROR',
  );
  // Only admins define them.
  const asServer = await rawCall(target, 'GET', '/project-permission-definitions', { access: 'server' });
  expect([asServer.status, asServer.code]).toEqual([401, 'INSUFFICIENT_ACCESS_TYPE']);
}

/** The server grants and revokes; the user lists its own, directly or with contained permissions. */
export async function serverGrantsAndRevokesTheUserListsItsOwn(target: ServiceTarget): Promise<void> {
  const { read, manage } = await defineTwo(target);
  const server = serverApp(target);
  const user = await signedUpUser(target);
  const asUser = clientTransport(target, user.accessToken);
  expect(await endpoints.listProjectPermissions(asUser, { user_id: 'me' })).toEqual([]);

  expect(await server.grantProjectPermission(user.userId, manage)).toEqual({ id: manage, userId: user.userId });
  // Granting again changes nothing.
  expect(await server.grantProjectPermission(user.userId, manage)).toEqual({ id: manage, userId: user.userId });
  expect(await endpoints.listProjectPermissions(asUser, { user_id: 'me' })).toEqual([
    { id: manage, user_id: user.userId },
  ]);
  expect(ids(await endpoints.listProjectPermissions(asUser, { user_id: 'me', recursive: true }))).toEqual(
    [manage, read].sort(),
  );
  expect(
    await endpoints.listProjectPermissions(asUser, { user_id: 'me', recursive: true, permission_id: read }),
  ).toEqual([{ id: read, user_id: user.userId }]);
  expect(ids(await server.listProjectPermissions({ userId: user.userId, recursive: true }))).toEqual(
    [manage, read].sort(),
  );

  // A permission reached through another cannot be revoked on its own.
  expect(knownCodeOf(await failureOf(server.revokeProjectPermission(user.userId, read)))).toBe('PERMISSION_NOT_FOUND');
  expect(await server.revokeProjectPermission(user.userId, manage)).toEqual({ success: true });
  expect(knownCodeOf(await failureOf(server.revokeProjectPermission(user.userId, manage)))).toBe(
    'PERMISSION_NOT_FOUND',
  );
  expect(await endpoints.listProjectPermissions(asUser, { user_id: 'me', recursive: true })).toEqual([]);
}

/** Grants are refused for unknown permissions and users, to clients, and a client lists only its own. */
export async function projectPermissionRefusals(target: ServiceTarget): Promise<void> {
  const { read } = await defineTwo(target);
  const server = serverApp(target);
  const user = await signedUpUser(target);
  expect(knownCodeOf(await failureOf(server.grantProjectPermission(user.userId, `unknown_${uniqueId()}`)))).toBe(
    'PERMISSION_NOT_FOUND',
  );
  expect(knownCodeOf(await failureOf(server.grantProjectPermission(crypto.randomUUID(), read)))).toBe('USER_NOT_FOUND');
  // A team system permission is no project permission.
  expect(knownCodeOf(await failureOf(server.grantProjectPermission(user.userId, '$read_members')))).toBe(
    'PERMISSION_NOT_FOUND',
  );

  const byClient = await rawCall(target, 'POST', `/project-permissions/me/${read}`, {
    accessToken: user.accessToken,
    body: {},
  });
  expect([byClient.status, byClient.code]).toEqual([401, 'INSUFFICIENT_ACCESS_TYPE']);
  const noBody = await rawCall(target, 'POST', `/project-permissions/${user.userId}/${read}`, { access: 'server' });
  expect([noBody.status, noBody.code]).toEqual([400, 'SCHEMA_ERROR']);

  const asUser = clientTransport(target, user.accessToken);
  const other = await failureOf(endpoints.listProjectPermissions(asUser, { user_id: crypto.randomUUID() }));
  expect(other).toBeInstanceOf(HttpStatusError);
  expect((other as HttpStatusError).status).toBe(403);
  const everyone = await rawCall(target, 'GET', '/project-permissions', {
    accessToken: user.accessToken,
    headers: { 'x-stack-allow-anonymous-user': 'true' },
  });
  expect(everyone.status).toBe(403);
  const nobody = await rawCall(target, 'GET', '/project-permissions?user_id=me');
  expect([nobody.status, nobody.code]).toEqual([400, 'CANNOT_GET_OWN_USER_WITHOUT_USER']);
  const badFlag = await rawCall(target, 'GET', '/project-permissions?user_id=me&recursive=yes', {
    accessToken: user.accessToken,
  });
  expect([badFlag.status, badFlag.code]).toEqual([400, 'SCHEMA_ERROR']);
}

/**
 * A renamed definition keeps its grants, an update writes the whole definition, a deleted one takes its grants along.
 */
export async function projectPermissionDefinitionRenameUpdateDelete(target: ServiceTarget): Promise<void> {
  const admin = adminApp(target);
  const server = serverApp(target);
  const { read, manage } = await defineTwo(target);
  const user = await signedUpUser(target);
  await server.grantProjectPermission(user.userId, manage);

  const renamed = `${read}_v2`;
  expect(
    await admin.updateProjectPermissionDefinition(read, { id: renamed, description: 'Read every report' }),
  ).toEqual({ id: renamed, description: 'Read every report', containedPermissionIds: [] });
  const afterRename = await admin.listProjectPermissionDefinitions();
  expect(afterRename.find((d) => d.id === manage)?.containedPermissionIds).toEqual([renamed]);
  expect(ids(await server.listProjectPermissions({ userId: user.userId, recursive: true }))).toEqual(
    [manage, renamed].sort(),
  );
  expect(knownCodeOf(await failureOf(admin.updateProjectPermissionDefinition(manage, { id: renamed })))).toBe(
    'PERMISSION_ID_ALREADY_EXISTS',
  );

  // The service writes the whole definition: what the update leaves out goes back to its default.
  expect(await admin.updateProjectPermissionDefinition(manage, { description: 'Manage reports' })).toEqual({
    id: manage,
    description: 'Manage reports',
    containedPermissionIds: [],
  });
  expect(ids(await server.listProjectPermissions({ userId: user.userId, recursive: true }))).toEqual([manage]);

  expect(await admin.deleteProjectPermissionDefinition(manage)).toEqual({ success: true });
  expect(await server.listProjectPermissions({ userId: user.userId, recursive: true })).toEqual([]);
  expect(knownCodeOf(await failureOf(admin.deleteProjectPermissionDefinition(manage)))).toBe('PERMISSION_NOT_FOUND');
  expect(knownCodeOf(await failureOf(admin.updateProjectPermissionDefinition(manage, { description: 'x' })))).toBe(
    'PERMISSION_NOT_FOUND',
  );
  await admin.deleteProjectPermissionDefinition(renamed);
}

/**
 * Through the broker: the projectPermissions query lists the user’s permissions with the contained ones, and follows a
 * refetch.
 */
export async function brokerQueryListsProjectPermissions(target: ServiceTarget): Promise<void> {
  const { read, manage } = await defineTwo(target);
  const server = serverApp(target);
  const email = uniqueEmail('broker-permissions');
  const created = await server.createUser({ primaryEmail: email, password: PASSWORD, primaryEmailAuthEnabled: true });
  const { tabs, close } = await brokerFor(target);
  try {
    const [tab] = tabs as [(typeof tabs)[0]];
    await tab.api.signInWithPassword({ email, password: PASSWORD });
    await tab.subscribe('permissions', { kind: 'projectPermissions' });
    await tab.waitFor('permissions', (s) => s.status === 'success', 30_000);
    expect(tab.latest('permissions')?.data).toEqual([]);
    await server.grantProjectPermission(created.id, manage);
    await tab.api.refetch({ kind: 'projectPermissions' });
    const granted = await tab.waitFor(
      'permissions',
      (s) => ((s.data as ProjectPermissionModel[] | undefined) ?? []).length === 2,
      30_000,
    );
    expect(ids(granted.data as ProjectPermissionModel[])).toEqual([manage, read].sort());
    expect(await tab.api.read({ kind: 'projectPermissions', recursive: false })).toEqual([
      { id: manage, userId: created.id },
    ]);
  } finally {
    close();
  }
}
