import type {
  AdminProject,
  ApiKeySet,
  ApiKeySetWithSecrets,
  ClientProject,
  ClientTeam,
  ClientTeamMemberProfile,
  ClientUser,
  ContactChannel,
  EmailTemplate,
  Json,
  ProjectMetrics,
  ProjectUpdate,
  SentEmail,
  ServerUser,
  Session,
  TeamInvitation,
  TeamInvitationDetails,
  TeamPermission,
  TeamPermissionDefinition,
  ProjectPermission,
  ProjectPermissionDefinition,
  NotificationPreference,
  ConnectedAccount,
  CreatedOwnedApiKey,
  TeamApiKey,
  UserApiKey,
  UserOAuthProvider,
} from './resources/index.js';

/**
 * The one place wire objects (snake_case) become the objects apps see (camelCase). The types are
 * derived from the wire types, so a field added to the protocol appears here by itself. Values of
 * free-form JSON fields (metadata, template content, WebAuthn options) are the app's own data and
 * are passed through untouched.
 */
const OPAQUE_KEYS = new Set([
  'client_metadata',
  'client_read_only_metadata',
  'server_metadata',
  'content',
  'options_json',
  'users_by_country',
]);

type CamelKey<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelKey<Tail>>}` : S;
type OpaqueKey =
  'client_metadata' | 'client_read_only_metadata' | 'server_metadata' | 'content' | 'options_json' | 'users_by_country';

/** A wire type with every key camelCased, recursively, except inside free-form JSON fields. */
export type Camelize<T> = T extends Json
  ? T extends readonly (infer E)[]
    ? Camelize<E>[]
    : T extends object
      ? { [K in keyof T as K extends string ? CamelKey<K> : K]: K extends OpaqueKey ? T[K] : Camelize<T[K]> }
      : T
  : T extends readonly (infer E)[]
    ? Camelize<E>[]
    : T extends object
      ? { [K in keyof T as K extends string ? CamelKey<K> : K]: K extends OpaqueKey ? T[K] : Camelize<T[K]> }
      : T;

function camelKey(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Converts a wire value; returns a fresh object tree (safe to freeze or clone). */
export function camelize<T>(value: T): Camelize<T> {
  if (Array.isArray(value)) return value.map((item) => camelize(item)) as Camelize<T>;
  if (value === null || typeof value !== 'object') return value as Camelize<T>;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    out[camelKey(key)] = OPAQUE_KEYS.has(key) ? inner : camelize(inner);
  }
  return out as Camelize<T>;
}

/** The signed-in user as the browser sees them: `primaryEmail`, `displayName`, `selectedTeamId`, `oauthProviders`… */
export type User = Camelize<ClientUser>;
/** A user as server code sees them: the browser's fields plus `serverMetadata` and the rest only a server may read. */
export type ServerUserModel = Camelize<ServerUser>;
/** A team: `id`, `displayName`, `profileImageUrl`, `clientMetadata`… */
export type Team = Camelize<ClientTeam>;
/** A member of a team: their user id and how they appear in it. */
export type TeamMember = Camelize<ClientTeamMemberProfile>;
/** An invitation to a team not yet accepted. */
export type TeamInvitationModel = Camelize<TeamInvitation>;
/** What an invitation link's code leads to (the team's name). */
export type TeamInvitationDetailsModel = Camelize<TeamInvitationDetails>;
/** A permission a user holds in a team. */
export type TeamPermissionModel = Camelize<TeamPermission>;
/** An e-mail address of a user: verified or not, primary or not, usable for sign-in or not. */
export type ContactChannelModel = Camelize<ContactChannel>;
/** One of a user's sessions (a device or browser signed in). */
export type SessionModel = Camelize<Session>;
/** A project's public settings: its name and the sign-in methods it offers. */
export type Project = Camelize<ClientProject>;
/** A project with its whole configuration, as its owner sees it. */
export type AdminProjectModel = Camelize<AdminProject>;
/** An API key set, without its secrets. */
export type ApiKey = Camelize<ApiKeySet>;
/** An API key set as created: with its secrets, shown this once. */
export type ApiKeyWithSecrets = Camelize<ApiKeySetWithSecrets>;
/** One of the project's e-mail templates. */
export type EmailTemplateModel = Camelize<EmailTemplate>;
/** An e-mail the project sent. */
export type SentEmailModel = Camelize<SentEmail>;
/** A team permission the project defines, with the permissions it contains. */
export type PermissionDefinition = Camelize<TeamPermissionDefinition>;
/** A project's sign-up and activity figures. */
export type Metrics = Camelize<ProjectMetrics>;
/** A project permission the user holds (`{ id, userId }`). */
export type ProjectPermissionModel = Camelize<ProjectPermission>;
/** A project permission as the project defines it (`{ id, description?, containedPermissionIds }`). */
export type ProjectPermissionDefinitionModel = Camelize<ProjectPermissionDefinition>;
/**
 * A notification category and whether the user gets its e-mails (`{ notificationCategoryId, notificationCategoryName,
 * enabled, canDisable }`).
 */
export type NotificationPreferenceModel = Camelize<NotificationPreference>;
/** A linked provider account usable for provider tokens (`{ userId, provider, providerAccountId }`). */
export type ConnectedAccountModel = Camelize<ConnectedAccount>;
/** A key the signed-in user holds for their own integrations (`{ id, description, lastFour… }`, never the key). */
export type UserApiKeyModel = Camelize<UserApiKey>;
/** A key a team holds (`{ id, teamId, description… }`, never the key). */
export type TeamApiKeyModel = Camelize<TeamApiKey>;
/** A user's key as made: `value` is the whole key, shown this once. */
export type CreatedUserApiKeyModel = Camelize<CreatedOwnedApiKey<UserApiKey>>;
/** A team's key as made: `value` is the whole key, shown this once. */
export type CreatedTeamApiKeyModel = Camelize<CreatedOwnedApiKey<TeamApiKey>>;
/** One of the user's OAuth providers: a linked account, whether it signs in and serves provider tokens. */
export type OAuthProviderModel = Camelize<UserOAuthProvider>;
/** `adminUpdateProject`'s input: the wire's ProjectUpdate in camelCase. */
export type ProjectUpdateModel = Camelize<ProjectUpdate>;

function snakeKey(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** camelCase input → wire snake_case, leaving the app's free-form JSON values untouched. */
export function snakeize(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (inner === undefined) continue;
    const wire = snakeKey(key);
    out[wire] =
      OPAQUE_KEYS.has(wire) || inner === null || typeof inner !== 'object'
        ? inner
        : Array.isArray(inner)
          ? inner.map((item: unknown) =>
              item !== null && typeof item === 'object' && !Array.isArray(item)
                ? snakeize(item as Record<string, unknown>)
                : item,
            )
          : snakeize(inner as Record<string, unknown>);
  }
  return out;
}

type CamelArgument<T> = T extends string | number | boolean | bigint | symbol | null | undefined ? T : Camelize<T>;
type CamelResult<R> =
  R extends AsyncGenerator<infer Y, infer Return, infer Next>
    ? AsyncGenerator<Camelize<Y>, Return, Next>
    : R extends Promise<infer V>
      ? Promise<Camelize<V>>
      : Camelize<R>;
/** An endpoint function that takes and returns models instead of wire objects. */
export type CamelEndpoint<F> = F extends (...args: infer P) => infer R
  ? (...args: { [I in keyof P]: CamelArgument<P[I]> }) => CamelResult<R>
  : never;
/** Endpoint functions taking and returning camelCase models instead of the wire's snake_case. */
export type CamelEndpoints<E> = { [K in keyof E]: CamelEndpoint<E[K]> };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

async function* camelizeEach<T>(items: AsyncGenerator<T>): AsyncGenerator<Camelize<T>> {
  for await (const item of items) yield camelize(item);
}

/**
 * Wraps functions that speak the wire (snake_case objects in and out) so that they take and return
 * the same camelCase models as the browser side. Plain-object arguments are converted back to the
 * wire; strings, numbers and the app's free-form JSON values pass through untouched.
 *
 * `ownOptions` names the functions whose object arguments are not wire bodies but options of our
 * own, already camelCase (`listTeams(t, { userId })`, `revokeTeamInvitation(t, { teamId, invitationId })`):
 * those arguments are passed as given, since snake_casing them would lose them.
 *
 * @typeParam E - The wire-level endpoint functions, by name.
 */
export function camelEndpoints<E extends Record<string, (...args: never[]) => unknown>>(
  endpoints: E,
  ownOptions: readonly string[] = [],
): CamelEndpoints<E> {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(endpoints)) {
    const toWire = ownOptions.includes(name)
      ? (arg: unknown) => arg
      : (arg: unknown) => (isPlainObject(arg) ? snakeize(arg) : arg);
    wrapped[name] = (...args: unknown[]) => {
      const result = (fn as (...wire: unknown[]) => unknown)(...args.map(toWire));
      if (result instanceof Promise) return result.then((value: unknown) => camelize(value));
      if (result !== null && typeof result === 'object' && Symbol.asyncIterator in result)
        return camelizeEach(result as AsyncGenerator<unknown>);
      return camelize(result);
    };
  }
  return wrapped as CamelEndpoints<E>;
}
