import type { AccessType } from './common.js';
import type { AdminProject, ClientProject } from './project.js';
import type { ClientTeam, ServerTeam } from './team.js';
import type { ClientTeamMemberProfile, ServerTeamMemberProfile } from './teamMember.js';
import type { ClientUser, ServerUser } from './user.js';

/** Access types that see server views and may act on any user. */
export type ServerAccess = 'server' | 'admin';

/** The view of a resource the service returns for an access type. */
export type UserFor<A extends AccessType> = A extends 'client' ? ClientUser : ServerUser;
/** The team type an access type sees. */
export type TeamFor<A extends AccessType> = A extends 'client' ? ClientTeam : ServerTeam;
/** The team-profile type an access type sees. */
export type TeamMemberProfileFor<A extends AccessType> = A extends 'client'
  ? ClientTeamMemberProfile
  : ServerTeamMemberProfile;
/** The project type an access type sees. */
export type ProjectFor<A extends AccessType> = A extends 'admin' ? AdminProject : ClientProject;
