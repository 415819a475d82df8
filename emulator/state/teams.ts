import type { Json } from '../../protocol/resources/common.js';
import type { MembershipRecord, ProjectRecord, TeamRecord } from './model.js';
import { startOnFreePlan } from './dashboardPlans.js';
import { forgetTeamInProjectFeatures } from './projectFeatures.js';
import { own } from './store.js';

export function findTeam(p: ProjectRecord, teamId: string): TeamRecord | undefined {
  return own(p.teams, teamId);
}

export function createTeamRecord(
  p: ProjectRecord,
  input: {
    display_name: string;
    profile_image_url?: string | null;
    client_metadata?: Json;
    client_read_only_metadata?: Json;
    server_metadata?: Json;
  },
  now: number,
): TeamRecord {
  const team: TeamRecord = {
    id: crypto.randomUUID(),
    display_name: input.display_name,
    profile_image_url: input.profile_image_url ?? null,
    client_metadata: input.client_metadata ?? null,
    client_read_only_metadata: input.client_read_only_metadata ?? null,
    server_metadata: input.server_metadata ?? null,
    created_at_millis: now,
  };
  p.teams[team.id] = team;
  startOnFreePlan(p, team.id, now);
  return team;
}

export function findMembership(p: ProjectRecord, teamId: string, userId: string): MembershipRecord | undefined {
  return p.memberships.find((m) => m.team_id === teamId && m.user_id === userId);
}

/** Adds a member with the project's creator or member default permissions. No-op when already a member. */
export function addMember(
  p: ProjectRecord,
  teamId: string,
  userId: string,
  role: 'creator' | 'member',
  now: number,
): MembershipRecord {
  const existing = findMembership(p, teamId, userId);
  if (existing) return existing;
  const membership: MembershipRecord = {
    team_id: teamId,
    user_id: userId,
    display_name: null,
    profile_image_url: null,
    created_at_millis: now,
  };
  p.memberships.push(membership);
  const defaults =
    role === 'creator' ? p.config.team_creator_default_permissions : p.config.team_member_default_permissions;
  for (const permission_id of defaults) grantPermission(p, teamId, userId, permission_id);
  return membership;
}

export function removeMember(p: ProjectRecord, teamId: string, userId: string): void {
  p.memberships = p.memberships.filter((m) => !(m.team_id === teamId && m.user_id === userId));
  p.permission_grants = p.permission_grants.filter((g) => !(g.team_id === teamId && g.user_id === userId));
  const user = own(p.users, userId);
  if (user && user.selected_team_id === teamId) user.selected_team_id = null;
}

export function deleteTeam(p: ProjectRecord, teamId: string): void {
  for (const m of p.memberships.filter((m) => m.team_id === teamId)) removeMember(p, teamId, m.user_id);
  forgetTeamInProjectFeatures(p, teamId);
  delete p.teams[teamId];
}

export function grantPermission(p: ProjectRecord, teamId: string, userId: string, permissionId: string): void {
  if (
    !p.permission_grants.some((g) => g.team_id === teamId && g.user_id === userId && g.permission_id === permissionId)
  ) {
    p.permission_grants.push({ team_id: teamId, user_id: userId, permission_id: permissionId });
  }
}

export function directPermissionIds(p: ProjectRecord, teamId: string, userId: string): string[] {
  return p.permission_grants.filter((g) => g.team_id === teamId && g.user_id === userId).map((g) => g.permission_id);
}

/** Direct grants plus everything they contain, transitively (cycles are harmless). */
export function effectivePermissionIds(p: ProjectRecord, teamId: string, userId: string): Set<string> {
  const seen = new Set<string>();
  const stack = directPermissionIds(p, teamId, userId);
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const child of own(p.permission_definitions, id)?.contained_permission_ids ?? []) stack.push(child);
  }
  return seen;
}

export function hasPermission(p: ProjectRecord, teamId: string, userId: string, permissionId: string): boolean {
  return effectivePermissionIds(p, teamId, userId).has(permissionId);
}
