/**
 * API keys a project's users and teams hold for their own integrations (`/user-api-keys`, `/team-api-keys`), switched
 * on per project by `allow_user_api_keys` / `allow_team_api_keys`. Newer than PROTOCOL.md (2.7); not the project's own
 * key sets (`ApiKeySet`, admin).
 */

interface OwnedApiKeyBase {
  id: string;
  description: string;
  /** A public key (`pk_…`) may be shown to anyone; a secret one is `sk_…`. */
  is_public: boolean;
  created_at_millis: number;
  /** Absent when the key never expires. */
  expires_at_millis?: number;
  /** Absent until the key is revoked; a second revocation keeps the first time. */
  manually_revoked_at_millis?: number;
  /** Only the last four characters: the whole key is shown once, when it is made. */
  value: { last_four: string };
}

/** An API key a user owns (`/user-api-keys`): it acts as that user. */
export interface UserApiKey extends OwnedApiKeyBase {
  type: 'user';
  user_id: string;
}

/** An API key a team owns (`/team-api-keys`): it acts for the team. */
export interface TeamApiKey extends OwnedApiKeyBase {
  type: 'team';
  team_id: string;
}

/** A user's or a team's API key, as the service lists it (never its whole value). */
export type OwnedApiKey = UserApiKey | TeamApiKey;

/** The answer of the create call: the whole key, this once. */
export type CreatedOwnedApiKey<K extends OwnedApiKey = OwnedApiKey> = Omit<K, 'value'> & { value: string };

/** `POST /user-api-keys`: `user_id` may be `me`; clients may make keys only for themselves. */
export interface UserApiKeyCreate {
  user_id: string;
  description: string;
  /** Null: never expires. */
  expires_at_millis: number | null;
  is_public?: boolean;
}

/** `POST /team-api-keys`: clients need the team's `$manage_api_keys`. */
export interface TeamApiKeyCreate {
  team_id: string;
  description: string;
  expires_at_millis: number | null;
  is_public?: boolean;
}

/** `PATCH /user-api-keys/{id}`, `/team-api-keys/{id}`: revocation is one-way. */
export interface OwnedApiKeyUpdate {
  description?: string;
  revoked?: true;
}
