import type { Json, Millis } from './common.js';

/** A team as a member's browser sees it (wire form). */
export interface ClientTeam {
  id: string;
  display_name: string;
  profile_image_url: string | null;
  client_metadata: Json;
  client_read_only_metadata: Json;
}

/** A team as server code sees it, with its server metadata. */
export interface ServerTeam extends ClientTeam {
  created_at_millis: Millis;
  server_metadata: Json;
}

/** What creating a team from a browser takes. */
export interface ClientTeamCreate {
  display_name: string;
  profile_image_url?: string | null;
  client_metadata?: Json;
  /** A uuid or `me`; for clients it must be the caller. */
  creator_user_id?: string;
}

/** What creating a team from a server takes. */
export interface ServerTeamCreate extends ClientTeamCreate {
  client_read_only_metadata?: Json;
  server_metadata?: Json;
}

/** What a member may change in a team. */
export interface ClientTeamUpdate {
  display_name?: string;
  profile_image_url?: string | null;
  client_metadata?: Json;
}

/** What server code may change in a team. */
export interface ServerTeamUpdate extends ClientTeamUpdate {
  client_read_only_metadata?: Json;
  server_metadata?: Json;
}

/** An unused, unexpired invitation (`GET /team-invitations?team_id=`). */
export interface TeamInvitation {
  id: string;
  team_id: string;
  /** The team's name (the service added it after v2.7). */
  team_display_name: string;
  expires_at_millis: Millis;
  recipient_email: string;
}

/** `POST /team-invitations/accept/details`. */
export interface TeamInvitationDetails {
  team_id: string;
  team_display_name: string;
}

/** `POST /team-invitations/send-code`. */
export interface TeamInvitationSent {
  success: true;
  id: string;
}

/** A grant of a permission to a member (`id` is the permission id). */
export interface TeamPermission {
  id: string;
  team_id: string;
  user_id: string;
}

/** Which team permissions to list: of a team, a user, a permission, and whether through contained permissions. */
export interface ListTeamPermissionsQuery {
  team_id?: string;
  user_id?: string;
  permission_id?: string;
  /** Include permissions reached through `contained_permission_ids`. */
  recursive?: boolean;
}

/** A permission definition (admin). `description` is omitted when empty. */
export interface TeamPermissionDefinition {
  id: string;
  description?: string;
  contained_permission_ids: string[];
}

/** What defining a team permission takes. */
export interface TeamPermissionDefinitionCreate {
  id: string;
  description?: string;
  contained_permission_ids?: string[];
}

/** What may change in a permission definition. */
export interface TeamPermissionDefinitionUpdate {
  id?: string;
  description?: string;
  contained_permission_ids?: string[];
}

/** The five permissions every project has; custom ids match `^[a-z0-9_:]+$`. */
export const systemPermissionIds = [
  '$delete_team',
  '$invite_members',
  '$read_members',
  '$remove_members',
  '$update_team',
] as const;
/** The permissions every project has (`$update_team`, `$invite_members`…). */
export type SystemPermissionId = (typeof systemPermissionIds)[number];
