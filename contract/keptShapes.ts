import type { PersistedKind } from './persisted.js';
import type { QueryData } from './queries.js';

/**
 * The shape each kind of kept data must have before a tab shows it on a first render. The kept
 * copy lives in `localStorage`, which any script of the origin (or a damaged write) can change: an
 * entry of the wrong shape would be handed to the app as if the broker had sent it, and could break
 * every later visit before the broker answers. The tables are compile-checked against the models, so
 * a field added to a model must be added here.
 *
 * A rule is `'s'` (string), `'n'` (finite number), `'b'` (boolean), any of them with `?` (or null),
 * `'j'` (the app's free-form JSON: anything), `[rule]` (a list of), an object of rules, or
 * `{ '?': rule }` (that, or null). Fields a newer service adds are let through; missing ones are not.
 */
export type Rule = 's' | 's?' | 'n' | 'n?' | 'b' | 'b?' | 'j' | readonly [Rule] | { readonly '?': Rule } | ObjectRule;
interface ObjectRule {
  readonly [field: string]: Rule;
}

type RuleFor<V> =
  | 'j'
  | ([V] extends [string] ? 's' : [V] extends [string | null] ? 's?' : never)
  | ([V] extends [number] ? 'n' : [V] extends [number | null] ? 'n?' : never)
  | ([V] extends [boolean] ? 'b' : [V] extends [boolean | null] ? 'b?' : never)
  | ([V] extends [readonly (infer E)[]] ? readonly [RuleFor<E>] : never)
  | ([V] extends [object]
      ? RulesOf<V>
      : [V] extends [object | null]
        ? { readonly '?': RulesOf<NonNullable<V>> }
        : never);

/** One rule per field of the model, no more, no fewer. */
type RulesOf<T> = { readonly [K in keyof T]-?: RuleFor<T[K]> };

type Element<K extends PersistedKind> = QueryData[K] extends ReadonlyArray<infer E> ? E : NonNullable<QueryData[K]>;

const team = {
  id: 's',
  displayName: 's',
  profileImageUrl: 's?',
  clientMetadata: 'j',
  clientReadOnlyMetadata: 'j',
} as const satisfies RulesOf<Element<'team'>>;
const member = { teamId: 's', userId: 's', displayName: 's?', profileImageUrl: 's?' } as const satisfies RulesOf<
  Element<'teamProfile'>
>;

const user = {
  id: 's',
  primaryEmail: 's?',
  primaryEmailVerified: 'b',
  displayName: 's?',
  profileImageUrl: 's?',
  signedUpAtMillis: 'n',
  clientMetadata: 'j',
  clientReadOnlyMetadata: 'j',
  hasPassword: 'b',
  otpAuthEnabled: 'b',
  passkeyAuthEnabled: 'b',
  authWithEmail: 'b',
  requiresTotpMfa: 'b',
  oauthProviders: [{ id: 's', accountId: 's', email: 's?' }],
  selectedTeamId: 's?',
  selectedTeam: { '?': team },
  isAnonymous: 'b',
  isRestricted: 'b',
  restrictedReason: { '?': { type: 's' } },
  restrictedByAdmin: 'b',
  restrictedByAdminReason: 's?',
} as const satisfies RulesOf<Element<'currentUser'>>;

const project = {
  id: 's',
  displayName: 's',
  config: {
    signUpEnabled: 'b',
    credentialEnabled: 'b',
    magicLinkEnabled: 'b',
    passkeyEnabled: 'b',
    clientTeamCreationEnabled: 'b',
    clientUserDeletionEnabled: 'b',
    enabledOauthProviders: [{ id: 's' }],
    domains: [{ domain: 's', handlerPath: 's' }],
    allowUserApiKeys: 'b',
    allowTeamApiKeys: 'b',
  },
} as const satisfies RulesOf<Element<'project'>>;

/** What a kept entry's data must be, per kind (lists as lists of their element). */
export const KEPT_SHAPES: { readonly [K in PersistedKind]: Rule } = {
  currentUser: user,
  teams: [team],
  team,
  teamMembers: [member],
  teamProfile: member,
  permissions: [{ id: 's', teamId: 's', userId: 's' } as const satisfies RulesOf<Element<'permissions'>>],
  contactChannels: [
    {
      id: 's',
      userId: 's',
      type: 's',
      value: 's',
      isPrimary: 'b',
      isVerified: 'b',
      usedForAuth: 'b',
    } as const satisfies RulesOf<Element<'contactChannels'>>,
  ],
  project,
};

/** Whether `value` has the shape `rule` describes. Bounded by the data (kept copies are small). */
export function fitsShape(rule: Rule, value: unknown): boolean {
  if (typeof rule === 'string') {
    if (rule === 'j') return true;
    if (value === null) return rule.endsWith('?');
    const type = rule[0] === 's' ? 'string' : rule[0] === 'n' ? 'number' : 'boolean';
    return typeof value === type && (type !== 'number' || Number.isFinite(value));
  }
  if (Array.isArray(rule)) return Array.isArray(value) && value.every((item) => fitsShape(rule[0] as Rule, item));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value === null && '?' in rule;
  if ('?' in rule) return fitsShape((rule as { '?': Rule })['?'], value);
  return Object.entries(rule as ObjectRule).every(
    ([field, inner]) => Object.hasOwn(value, field) && fitsShape(inner, (value as Record<string, unknown>)[field]),
  );
}
