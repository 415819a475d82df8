/**
 * Project permissions: permissions a user holds in the whole project, outside any team
 * (`/project-permissions`, `/project-permission-definitions`). Newer than PROTOCOL.md (2.7).
 */

/** A grant of a project permission to a user (`GET /project-permissions` item). */
export interface ProjectPermission {
  /** The permission's id, e.g. `read_reports`. */
  id: string;
  user_id: string;
}

/** Query of `GET /project-permissions`. Clients may only ask about themselves (`me`). */
export interface ListProjectPermissionsQuery {
  user_id?: string;
  permission_id?: string;
  /** Also list the permissions reached through contained permissions (default false on the wire). */
  recursive?: boolean;
}

/** A project permission as the project defines it (admin). */
export interface ProjectPermissionDefinition {
  id: string;
  description?: string;
  contained_permission_ids: string[];
}

/** `POST /project-permission-definitions`: ids match `^[a-z0-9_:]+$`. */
export interface ProjectPermissionDefinitionCreate {
  id: string;
  description?: string;
  contained_permission_ids?: string[];
}

/** `PATCH /project-permission-definitions/{id}`: renames are allowed. */
export interface ProjectPermissionDefinitionUpdate {
  id?: string;
  description?: string;
  contained_permission_ids?: string[];
}
