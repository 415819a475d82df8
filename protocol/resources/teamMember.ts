import type { ServerUser } from './user.js';

/**
 * Team members: where users and teams meet. A file of its own, so that user.ts (a user's selected
 * team) and team.ts never import each other.
 */

/** `POST /team-memberships/{team_id}/{user_id}`: the body must be exactly `{}`. */
export interface TeamMembership {
  team_id: string;
  user_id: string;
}

/** A member as other members see them; the name and image fall back to the user's own. */
export interface ClientTeamMemberProfile {
  team_id: string;
  user_id: string;
  display_name: string | null;
  profile_image_url: string | null;
}

export interface ServerTeamMemberProfile extends ClientTeamMemberProfile {
  user: ServerUser;
}

/** What may change in a member's team profile. */
export interface TeamMemberProfileUpdate {
  display_name?: string;
  profile_image_url?: string | null;
}
