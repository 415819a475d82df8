/**
 * The broker's own writes that may wait out an outage, and what the broker knows of each: what the cache shows while it
 * waits (the optimistic value), what to read again when it is refused (the rollback), whether the same write twice is
 * the write once, and how to tell that the service already holds it when a send's answer was lost. That last check is
 * how "nothing is sent twice" holds for the service's own calls, which take no idempotency key: a write whose send may
 * have reached the service is checked before it goes again, and never sent when the service shows it already.
 *
 * Not here, so never kept: writes whose repeat would be a second thing (createTeam: two teams; inviteToTeam: two
 * e-mails; API keys: a second secret), and those that sign in, out, or change credentials (a password, a passkey,
 * MFA), which must not happen in a session the user may have left.
 */
import type {
  ContactChannelModel,
  NotificationPreferenceModel,
  Team,
  TeamMember,
  User,
} from '../../protocol/models.js';
import type { QuerySpec } from '../../contract/queries.js';
import type { QueryFilter } from '../cache/queryClient.js';

/** A change of one cached value while a write waits. */
export interface Overlay {
  spec: QuerySpec;
  change(value: unknown): unknown;
}

/** A GET of the service as the user, its answer camelCased (the broker's own calls, in its turns). */
export type ServiceReader = (path: string, query?: Record<string, string>) => Promise<unknown>;

export interface QueueableAction {
  /** The same write sent twice leaves the service as once (an update to given values, a delete). */
  idempotent: boolean;
  /** What tabs see while it waits. */
  overlays(args: unknown[]): Overlay[];
  /** What to read again when it is refused or dropped: the optimistic value rolled back. */
  affected(args: unknown[]): QueryFilter[];
  /**
   * Whether the service holds this write already (asked before a send whose answer was lost goes again): what the call
   * would have answered when it does, null when it does not.
   */
  applied(read: ServiceReader, args: unknown[]): Promise<{ result: unknown } | null>;
}

type Fields = Record<string, unknown>;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
/** Whether `value` holds every field of `update` as given. */
const holds = (value: object, update: Fields) =>
  Object.entries(update).every(([key, wanted]) => wanted === undefined || same((value as Fields)[key], wanted));
/** `value` as the answer of a write the service holds, when it is there (and `test` says it shows the write). */
const found = <T>(value: T | null | undefined, test: (value: T) => boolean = () => true) =>
  value !== null && value !== undefined && test(value) ? { result: value } : null;
/** A deletion the service holds: the thing is gone. */
const gone = (stillThere: boolean) => (stillThere ? null : { result: undefined });
const merge = (value: unknown, update: Fields) => (value == null ? value : { ...(value as Fields), ...update });
const list = (value: unknown) => (Array.isArray(value) ? (value as Fields[]) : null);

/** `updateUser`'s fields a user object shows as given (a TOTP secret and a passkey removal show as something else). */
function userFields(update: Fields): Fields | null {
  const { totpSecret, passkeyAuthEnabled, ...fields } = update;
  return totpSecret === undefined && passkeyAuthEnabled === undefined ? fields : null;
}
const items = async <T>(read: ServiceReader, path: string, query?: Record<string, string>) =>
  ((await read(path, query)) as { items: T[] }).items;
const currentUser = async (read: ServiceReader) => (await read('/users/me')) as User;
const channels = (read: ServiceReader) => items<ContactChannelModel>(read, '/contact-channels', { user_id: 'me' });
const myTeams = (read: ServiceReader) => items<Team>(read, '/teams', { user_id: 'me' });
const id = (value: unknown) => encodeURIComponent(String(value));
const channelFields = ({ email, usedForAuth, isPrimary }: Fields): Fields => ({ value: email, usedForAuth, isPrimary });

const userChanged: QueryFilter[] = [{ kind: 'currentUser' }];
const channelsChanged: QueryFilter[] = [{ kind: 'contactChannels' }, { kind: 'currentUser' }];

export const queueableActions: Record<string, QueueableAction> = {
  updateUser: {
    idempotent: true,
    overlays: ([update]) => {
      const fields = userFields(update as Fields);
      return fields === null ? [] : [{ spec: { kind: 'currentUser' }, change: (user) => merge(user, fields) }];
    },
    affected: () => userChanged,
    async applied(read, [update]) {
      const fields = userFields(update as Fields);
      return fields === null ? null : found(await currentUser(read), (user) => holds(user, fields));
    },
  },
  setSelectedTeam: {
    idempotent: true,
    overlays: ([teamId]) => [
      { spec: { kind: 'currentUser' }, change: (user) => merge(user, { selectedTeamId: teamId }) },
    ],
    affected: () => userChanged,
    applied: async (read, [teamId]) => found(await currentUser(read), (user) => user.selectedTeamId === teamId),
  },
  createContactChannel: {
    idempotent: false,
    overlays: () => [],
    affected: () => channelsChanged,
    // One address per user: there when the first send reached the service.
    applied: async (read, [input]) => {
      const email = String((input as Fields).email).toLowerCase();
      return found((await channels(read)).find((c) => c.value.toLowerCase() === email));
    },
  },
  updateContactChannel: {
    idempotent: true,
    overlays: ([channelId, update]) => [
      {
        spec: { kind: 'contactChannels' },
        change: (value) =>
          list(value)?.map((c) => (c.id === channelId ? merge(c, prune(channelFields(update as Fields))) : c)) ?? value,
      },
    ],
    affected: () => channelsChanged,
    applied: async (read, [channelId, update]) =>
      found(
        (await channels(read)).find((c) => c.id === channelId),
        (channel) => holds(channel, channelFields(update as Fields)),
      ),
  },
  deleteContactChannel: {
    idempotent: true,
    overlays: ([channelId]) => [
      { spec: { kind: 'contactChannels' }, change: (value) => list(value)?.filter((c) => c.id !== channelId) ?? value },
    ],
    affected: () => channelsChanged,
    applied: async (read, [channelId]) => gone((await channels(read)).some((c) => c.id === channelId)),
  },
  updateTeam: {
    idempotent: true,
    overlays: ([teamId, update]) => [
      { spec: { kind: 'team', teamId: teamId as string }, change: (team) => merge(team, update as Fields) },
      {
        spec: { kind: 'teams' },
        change: (value) => list(value)?.map((t) => (t.id === teamId ? merge(t, update as Fields) : t)) ?? value,
      },
    ],
    affected: ([teamId]) => [{ kind: 'team', teamId }, { kind: 'teams' }],
    applied: async (read, [teamId, update]) =>
      found((await read(`/teams/${id(teamId)}`)) as Team, (team) => holds(team, update as Fields)),
  },
  updateTeamProfile: {
    idempotent: true,
    overlays: ([teamId, update]) => [
      {
        spec: { kind: 'teamProfile', teamId: teamId as string },
        change: (profile) => merge(profile, update as Fields),
      },
    ],
    affected: ([teamId]) => [
      { kind: 'teamProfile', teamId },
      { kind: 'teamMembers', teamId },
    ],
    applied: async (read, [teamId, update]) =>
      found((await read(`/team-member-profiles/${id(teamId)}/me`)) as TeamMember, (profile) =>
        holds(profile, update as Fields),
      ),
  },
  leaveTeam: {
    idempotent: true,
    overlays: ([teamId]) => [
      { spec: { kind: 'teams' }, change: (value) => list(value)?.filter((t) => t.id !== teamId) ?? value },
    ],
    affected: ([teamId]) => [{ kind: 'teams' }, { kind: 'team', teamId }, { kind: 'currentUser' }],
    applied: async (read, [teamId]) => gone((await myTeams(read)).some((t) => t.id === teamId)),
  },
  deleteTeam: {
    idempotent: true,
    overlays: ([teamId]) => [
      { spec: { kind: 'teams' }, change: (value) => list(value)?.filter((t) => t.id !== teamId) ?? value },
    ],
    affected: ([teamId]) => [{ kind: 'teams' }, { kind: 'team', teamId }, { kind: 'currentUser' }],
    applied: async (read, [teamId]) => gone((await myTeams(read)).some((t) => t.id === teamId)),
  },
  updateNotificationPreference: {
    idempotent: true,
    overlays: ([categoryId, update]) => [
      {
        spec: { kind: 'notificationPreferences' },
        change: (value) =>
          list(value)?.map((p) => (p.notificationCategoryId === categoryId ? merge(p, update as Fields) : p)) ?? value,
      },
    ],
    affected: () => [{ kind: 'notificationPreferences' }],
    applied: async (read, [categoryId, update]) =>
      found(
        (await items<NotificationPreferenceModel>(read, '/emails/notification-preference/me')).find(
          (p) => p.notificationCategoryId === categoryId,
        ),
        (preference) => holds(preference, update as Fields),
      ),
  },
};

/** `fields` without the ones left out. */
function prune(fields: Fields): Fields {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** The queueable action of `method`, if it is one. */
export function queueableAction(method: string): QueueableAction | undefined {
  return Object.hasOwn(queueableActions, method) ? queueableActions[method] : undefined;
}
