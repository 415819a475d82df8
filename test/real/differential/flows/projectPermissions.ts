import * as api from '../../../../protocol/endpoints/index.js';
import type { Flow } from '../flow.js';
import { CALLBACK, createFlowProject, NOBODY, PASSWORD } from './project.js';

export const projectPermissionFlow: Flow = {
  name: 'project-permission',
  covers: 'project permission definitions (admin), granting, listing and revoking project permissions',
  async run(ctx) {
    if (!(await createFlowProject(ctx))) return;
    const admin = ctx.admin();
    const server = ctx.server();
    await ctx.step('list definitions', () => api.listProjectPermissionDefinitions(admin));
    await ctx.step('create a definition', () =>
      api.createProjectPermissionDefinition(admin, { id: 'read_reports', description: 'Read reports' }),
    );
    await ctx.step('create a containing definition', () =>
      api.createProjectPermissionDefinition(admin, {
        id: 'manage_reports',
        contained_permission_ids: ['read_reports'],
      }),
    );
    await ctx.step('create a definition twice', () =>
      api.createProjectPermissionDefinition(admin, { id: 'read_reports' }),
    );
    await ctx.step('create one containing an unknown permission', () =>
      api.createProjectPermissionDefinition(admin, { id: 'orphan', contained_permission_ids: ['no_such_permission'] }),
    );
    await ctx.step('create one containing a team system permission', () =>
      api.createProjectPermissionDefinition(admin, { id: 'members', contained_permission_ids: ['$read_members'] }),
    );
    await ctx.step('create a definition with a bad id', () =>
      api.createProjectPermissionDefinition(admin, { id: '$not_custom' }),
    );
    await ctx.step('list definitions after', () => api.listProjectPermissionDefinitions(admin));
    await ctx.raw('list definitions (server)', {
      method: 'GET',
      path: '/project-permission-definitions',
      headers: ctx.headers('server'),
    });

    const owner = await ctx.step('sign-up', () =>
      api.signUpWithPassword(ctx.client(), {
        email: ctx.email('project-perm'),
        password: PASSWORD,
        verification_callback_url: CALLBACK,
      }),
    );
    if (!owner) return;
    const me = ctx.client(owner);
    const userId = owner.user_id;
    await ctx.step('list mine, none yet', () => api.listProjectPermissions(me, { user_id: 'me' }));
    await ctx.step('grant (server)', () => api.grantProjectPermission(server, userId, 'manage_reports'));
    await ctx.step('grant twice', () => api.grantProjectPermission(server, userId, 'manage_reports'));
    await ctx.step('grant an unknown permission', () =>
      api.grantProjectPermission(server, userId, 'no_such_permission'),
    );
    await ctx.step('grant to an unknown user', () => api.grantProjectPermission(server, NOBODY, 'read_reports'));
    await ctx.step('grant a team system permission', () => api.grantProjectPermission(server, userId, '$read_members'));
    await ctx.raw('grant (client)', {
      method: 'POST',
      path: '/project-permissions/me/read_reports',
      headers: ctx.headers('client', { 'x-stack-access-token': owner.access_token }),
      body: {},
    });
    await ctx.raw('grant without a body', {
      method: 'POST',
      path: `/project-permissions/${userId}/read_reports`,
      headers: ctx.headers('server'),
    });
    await ctx.step('list mine, direct', () => api.listProjectPermissions(me, { user_id: 'me' }));
    await ctx.step('list mine, recursive', () => api.listProjectPermissions(me, { user_id: 'me', recursive: true }));
    await ctx.step('list one permission of mine', () =>
      api.listProjectPermissions(me, { user_id: 'me', permission_id: 'read_reports', recursive: true }),
    );
    await ctx.step('list a user (server)', () =>
      api.listProjectPermissions(server, { user_id: userId, recursive: true }),
    );
    await ctx.step('list every grant (server)', () => api.listProjectPermissions(server));
    await ctx.step("list another user's (client)", () => api.listProjectPermissions(me, { user_id: NOBODY }));
    await ctx.raw('list without a user (client)', {
      method: 'GET',
      path: '/project-permissions',
      headers: ctx.headers('client', { 'x-stack-access-token': owner.access_token }),
    });
    await ctx.raw('list mine without a session', {
      method: 'GET',
      path: '/project-permissions?user_id=me',
      headers: ctx.headers('client'),
    });
    await ctx.raw('list with recursive=yes', {
      method: 'GET',
      path: '/project-permissions?user_id=me&recursive=yes',
      headers: ctx.headers('client', { 'x-stack-access-token': owner.access_token }),
    });

    await ctx.step('rename a granted definition', () =>
      api.updateProjectPermissionDefinition(admin, 'read_reports', {
        id: 'read_all_reports',
        description: 'Read every report',
      }),
    );
    await ctx.step('rename onto a taken id', () =>
      api.updateProjectPermissionDefinition(admin, 'manage_reports', { id: 'read_all_reports' }),
    );
    await ctx.step('list definitions after the rename', () => api.listProjectPermissionDefinitions(admin));
    await ctx.step('revoke a contained permission', () =>
      api.revokeProjectPermission(server, userId, 'read_all_reports'),
    );
    await ctx.step('revoke (server)', () => api.revokeProjectPermission(server, userId, 'manage_reports'));
    await ctx.step('revoke twice', () => api.revokeProjectPermission(server, userId, 'manage_reports'));
    await ctx.step('grant again before deleting', () => api.grantProjectPermission(server, userId, 'manage_reports'));
    await ctx.step('delete a granted definition', () => api.deleteProjectPermissionDefinition(admin, 'manage_reports'));
    await ctx.step('list mine after the deletion', () =>
      api.listProjectPermissions(me, { user_id: 'me', recursive: true }),
    );
    await ctx.step('delete an unknown definition', () =>
      api.deleteProjectPermissionDefinition(admin, 'manage_reports'),
    );
    await ctx.step('update an unknown definition', () =>
      api.updateProjectPermissionDefinition(admin, 'manage_reports', { description: 'x' }),
    );
  },
};
