import type {
  NotificationPreferenceRecord,
  OwnedApiKeyRecord,
  PermissionDefinitionRecord,
  ProjectPermissionGrantRecord,
  ProjectRecord,
} from './model.js';
import { own } from './store.js';

/**
 * The parts of a project that later service versions added (project permissions, notification
 * preferences). Snapshots written before them lack the fields, so they are read (and created) here.
 */
export function projectPermissionDefinitions(p: ProjectRecord): Record<string, PermissionDefinitionRecord> {
  return (p.project_permission_definitions ??= {});
}

export function projectPermissionGrants(p: ProjectRecord): ProjectPermissionGrantRecord[] {
  return (p.project_permission_grants ??= []);
}

export function notificationPreferences(p: ProjectRecord): NotificationPreferenceRecord[] {
  return (p.notification_preferences ??= []);
}

/** The keys of the project's users and teams (`/user-api-keys`, `/team-api-keys`). */
export function ownedApiKeys(p: ProjectRecord): OwnedApiKeyRecord[] {
  return (p.owned_api_keys ??= []);
}

/** The permissions a user holds directly, sorted. */
export function directProjectPermissionIds(p: ProjectRecord, userId: string): string[] {
  return projectPermissionGrants(p)
    .filter((g) => g.user_id === userId)
    .map((g) => g.permission_id)
    .sort();
}

/** The user's permissions with every one they contain, transitively (each once, sorted). */
export function effectiveProjectPermissionIds(p: ProjectRecord, userId: string): string[] {
  const definitions = projectPermissionDefinitions(p);
  const seen = new Set<string>();
  const stack = directProjectPermissionIds(p, userId);
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const child of own(definitions, id)?.contained_permission_ids ?? []) stack.push(child);
  }
  return [...seen].sort();
}

/** Everything of these parts that names the user goes with the user. */
export function forgetUserInProjectFeatures(p: ProjectRecord, userId: string): void {
  if (p.project_permission_grants)
    p.project_permission_grants = p.project_permission_grants.filter((g) => g.user_id !== userId);
  if (p.notification_preferences)
    p.notification_preferences = p.notification_preferences.filter((n) => n.user_id !== userId);
  if (p.owned_api_keys)
    p.owned_api_keys = p.owned_api_keys.filter((k) => !(k.owner.type === 'user' && k.owner.user_id === userId));
}

/** A team's keys go with the team. */
export function forgetTeamInProjectFeatures(p: ProjectRecord, teamId: string): void {
  if (p.owned_api_keys)
    p.owned_api_keys = p.owned_api_keys.filter((k) => !(k.owner.type === 'team' && k.owner.team_id === teamId));
}
