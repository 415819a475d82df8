/**
 * The rules for every argument of every broker method, checked where calls arrive (before the
 * method runs): a bad argument is an InvalidArgumentError naming the field, and the method gets a
 * fresh copy holding only the fields named here. The compiler checks that each method's parsed
 * arguments are what BrokerApi declares. The rules' vocabulary is `schema.ts`.
 */
import { InvalidArgumentError } from '../protocol/errors/errors.js';
import { emailTemplateTypes } from '../protocol/resources/admin.js';
import type { Json } from '../protocol/resources/common.js';
import type { ProjectUpdateModel } from '../protocol/models.js';
import type { BillableCustomer, Customer } from '../protocol/paymentModels.js';
import type { BrokerApi } from './api.js';
import { checkPlainValues } from './plainData.js';
import type { MethodName } from './methods.js';
import { isQueryKind, queryDefinition, queries, type QuerySpec } from './queries.js';
import {
  absoluteUrl,
  args,
  array,
  bool,
  check,
  fields,
  finiteNumber,
  instance,
  json,
  literal,
  maxLength,
  nonEmpty,
  nullable,
  oneOf,
  optional,
  parseValue,
  pipe,
  regex,
  segment,
  stringList,
  text,
  tooManyArguments,
  transform,
  unknown,
  userId,
  uuid,
  type ArgumentList,
} from './schema.js';

/** A query: a known kind and exactly that kind's parameters, as a fresh object. */
export function parseQuerySpec(value: unknown, name = 'query'): QuerySpec {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidArgumentError(name, `${name} must be a query object.`);
  }
  const { kind, ...params } = value as Record<string, unknown>;
  if (!isQueryKind(kind)) {
    throw new InvalidArgumentError(
      `${name}.kind`,
      `Unknown query kind ${JSON.stringify(kind)?.slice(0, 100)}; known: ${queryKinds.join(', ')}.`,
    );
  }
  const parsed = parseValue(`a ${kind} query`, name, queryDefinition(kind).params, params) as Record<string, unknown>;
  return { ...parsed, kind } as QuerySpec;
}

// Its own errors name the field (query.kind, query.teamId…), so it runs as a transform.
const querySpec = () =>
  pipe(
    unknown(),
    transform((value) => parseQuerySpec(value)),
  );

/**
 * Where to send the browser after a flow: an absolute http(s) URL without whitespace, control characters or backslashes
 * (the tab checks the origin).
 */
const redirectTarget = () =>
  pipe(
    absoluteUrl(),
    // eslint-disable-next-line no-control-regex
    check(
      (s) => !/[\s\u0000-\u001f\u007f\\]/.test(s) && /^https?:$/.test(new URL(s).protocol),
      'must be an http(s) URL',
    ),
  );
/** Provider scopes, each one word (they are joined with spaces on the wire). */
const scopeList = () =>
  array(pipe(nonEmpty(), regex(/^\S+$/, 'must be one scope without spaces')), 'must be an array of scopes');
const email = () => pipe(nonEmpty(), maxLength(1000));
const password = () =>
  pipe(
    text(),
    check((s) => s.length > 0, 'must not be empty'),
  );
const code = () => pipe(nonEmpty(), maxLength(10_000));
const otp = () =>
  pipe(
    nonEmpty(),
    transform((s) => s.trim()),
    regex(/^[0-9a-z]{6}$/i, 'must be the 6 letters and digits of the code'),
  );
const totp = () =>
  pipe(
    nonEmpty(),
    transform((s) => s.replace(/\s+/g, '')),
    regex(/^\d{6}$/, 'must be the 6 digits of the authenticator code'),
  );
const jsonObject = () =>
  pipe(
    json(),
    check((value) => typeof value === 'object' && value !== null && !Array.isArray(value), 'must be an object'),
    transform((value) => value as Record<string, Json>),
  );
/**
 * The service checks a project's settings field by field; here they only need to be a JSON object (camelCase, as
 * returned).
 */
const projectSettings = () =>
  pipe(
    jsonObject(),
    transform((value) => value as ProjectUpdateModel),
  );
const adminOptions = () => optional(fields({ projectId: optional(segment()) }));
const subscriptionId = () => pipe(nonEmpty(), maxLength(200));
const lockName = () => pipe(nonEmpty(), maxLength(300));
const signIn = () => fields({ email: email(), password: password() });
const mfa = () => fields({ attemptCode: code(), totp: totp() });
const channelUpdate = () =>
  fields({ email: optional(email()), usedForAuth: optional(bool()), isPrimary: optional(bool()) });
const permissionFields = { description: optional(text()), containedPermissionIds: optional(stringList()) };
/**
 * A payments customer: exactly one of its ids (users' and teams' UUIDs). One rule for every method; where the service
 * takes only users and teams, it refuses a custom customer itself.
 */
const customer = <T extends Customer>() =>
  pipe(
    fields({ userId: optional(uuid()), teamId: optional(uuid()), customCustomerId: optional(segment()) }),
    check((c) => Object.values(c).filter((id) => id !== undefined).length === 1, 'must name exactly one customer id'),
    transform((c) => c as T),
  );

const apiKeyInput = () =>
  fields({ description: text(), expiresAtMillis: nullable(finiteNumber()), isPublic: optional(bool()) });

/** A token the app's API refused, as long as a stored one may be. */
const MAX_APP_TOKEN_LENGTH = 8192;
/** The largest body a queued `client.fetch` call may have: it is kept whole, in IndexedDB, until it is sent. */
export const MAX_APP_REQUEST_BODY_BYTES = 1_048_576;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,200}$/;
/** A queueable `client.fetch` call (contract/appRequests.ts); the broker checks its origin against the app's. */
const appRequest = () =>
  fields({
    url: redirectTarget(),
    method: pipe(nonEmpty(), regex(/^[A-Za-z]{1,20}$/, 'must be an HTTP method')),
    headers: array(
      pipe(
        array(pipe(text(), maxLength(8192))),
        check((pair) => pair.length === 2 && HEADER_NAME.test(pair[0]!), 'must be a [name, value] header'),
        transform((pair) => pair as [string, string]),
      ),
    ),
    body: nullable(
      pipe(
        instance(Uint8Array, 'must be bytes (a Uint8Array)'),
        check((b) => b.length <= MAX_APP_REQUEST_BODY_BYTES, `must be at most ${MAX_APP_REQUEST_BODY_BYTES} bytes`),
      ),
    ),
    idempotencyKey: pipe(nonEmpty(), maxLength(200)),
    label: optional(pipe(text(), maxLength(200))),
    requireUser: optional(bool()),
  });

type Rules = { [K in MethodName]: ArgumentList<Parameters<BrokerApi[K]>> };

export const argumentRules = {
  status: args(),
  subscribe: args(['subscriptionId', subscriptionId()], ['query', querySpec()]),
  unsubscribe: args(['subscriptionId', subscriptionId()]),
  read: args(['query', querySpec()]),
  refetch: args(['query', querySpec()]),
  reportBrowserState: args(['state', fields({ online: optional(bool()), visible: optional(bool()) })]),
  goodbye: args(),
  watchLifetime: args(['lockName', lockName()]),
  getAccessToken: args(),
  configProblems: args(),

  signUpWithPassword: args([
    'input',
    fields({ email: email(), password: password(), verificationCallbackUrl: optional(absoluteUrl()) }),
  ]),
  signInWithPassword: args(['input', signIn()]),
  signUpAnonymously: args(),
  sendMagicLink: args(['input', fields({ email: email(), callbackUrl: optional(absoluteUrl()) })]),
  signInWithMagicLink: args(['code', code()]),
  signInWithOtp: args(['input', fields({ otp: otp(), nonce: text() })]),
  signInWithMfa: args(['input', mfa()]),
  beginPasskeyRegistration: args(),
  finishPasskeyRegistration: args(['input', fields({ credential: jsonObject(), code: code() })]),
  beginPasskeySignIn: args(),
  finishPasskeySignIn: args(['input', fields({ response: jsonObject(), code: code() })]),
  startOAuth: args([
    'input',
    fields({
      providerId: segment(),
      redirectUri: absoluteUrl(),
      type: optional(oneOf(['authenticate', 'link'])),
      scopes: optional(scopeList()),
      errorRedirectUrl: optional(redirectTarget()),
      afterCallbackRedirectUrl: optional(redirectTarget()),
    }),
  ]),
  completeOAuth: args(['input', fields({ callbackUrl: absoluteUrl() })]),
  signOut: args(),

  sendPasswordResetEmail: args(['input', fields({ email: email(), callbackUrl: optional(absoluteUrl()) })]),
  checkPasswordResetCode: args(['code', code()]),
  resetPassword: args(['input', fields({ code: code(), password: password() })]),
  updatePassword: args(['input', fields({ oldPassword: text(), newPassword: password() })]),
  setPassword: args(['input', fields({ password: password() })]),

  updateUser: args([
    'update',
    fields({
      displayName: optional(nullable(text())),
      profileImageUrl: optional(nullable(text())),
      clientMetadata: optional(json()),
      otpAuthEnabled: optional(bool()),
      passkeyAuthEnabled: optional(literal(false, 'can only be false')),
      totpSecret: optional(
        nullable(
          pipe(
            instance(Uint8Array, 'must be bytes (a Uint8Array)'),
            check((b) => b.length >= 10 && b.length <= 64, 'must be 10 to 64 bytes'),
          ),
        ),
      ),
      selectedTeamId: optional(nullable(uuid())),
    }),
  ]),
  setSelectedTeam: args(['teamId', nullable(uuid())]),
  deleteUser: args(),
  createContactChannel: args(['input', fields({ email: email(), usedForAuth: bool(), isPrimary: optional(bool()) })]),
  updateContactChannel: args(['channelId', uuid()], ['update', channelUpdate()]),
  deleteContactChannel: args(['channelId', uuid()]),
  sendContactChannelVerification: args(['channelId', uuid()], ['callbackUrl', optional(absoluteUrl())]),
  verifyEmail: args(['code', code()]),
  checkEmailVerificationCode: args(['code', code()]),
  revokeSession: args(['sessionId', uuid()]),
  getConnectedAccountAccessToken: args(
    ['providerId', segment()],
    ['options', optional(fields({ scopes: optional(scopeList()), providerAccountId: optional(segment()) }))],
  ),
  updateNotificationPreference: args(['categoryId', uuid()], ['update', fields({ enabled: bool() })]),

  createTeam: args([
    'input',
    fields({ displayName: nonEmpty(), profileImageUrl: optional(nullable(text())), clientMetadata: optional(json()) }),
  ]),
  updateTeam: args(
    ['teamId', uuid()],
    [
      'update',
      fields({
        displayName: optional(text()),
        profileImageUrl: optional(nullable(text())),
        clientMetadata: optional(json()),
      }),
    ],
  ),
  deleteTeam: args(['teamId', uuid()]),
  leaveTeam: args(['teamId', uuid()]),
  removeTeamMember: args(['teamId', uuid()], ['userId', userId()]),
  updateTeamProfile: args(
    ['teamId', uuid()],
    ['update', fields({ displayName: optional(text()), profileImageUrl: optional(nullable(text())) })],
  ),
  inviteToTeam: args(['input', fields({ teamId: uuid(), email: email(), callbackUrl: optional(absoluteUrl()) })]),
  revokeTeamInvitation: args(['input', fields({ teamId: uuid(), invitationId: uuid() })]),
  acceptTeamInvitation: args(['code', code()]),
  checkTeamInvitationCode: args(['code', code()]),
  getTeamInvitationDetails: args(['code', code()]),

  getPartialUser: args(['options', optional(fields({ includeAnonymous: optional(bool()) }))]),
  getAuthHeaders: args(),
  confirmCliLogin: args(['loginCode', code()]),
  appToken: args(['refused', optional(pipe(nonEmpty(), maxLength(MAX_APP_TOKEN_LENGTH)))]),
  sendAppRequest: args(['request', appRequest()]),
  dismissPendingChange: args(['id', pipe(nonEmpty(), maxLength(100))]),

  createUserApiKey: args(['input', apiKeyInput()]),
  revokeUserApiKey: args(['apiKeyId', uuid()]),
  createTeamApiKey: args(['teamId', uuid()], ['input', apiKeyInput()]),
  revokeTeamApiKey: args(['teamId', uuid()], ['apiKeyId', uuid()]),
  updateOAuthProvider: args(
    ['oauthProviderId', uuid()],
    ['update', fields({ allowSignIn: optional(bool()), allowConnectedAccounts: optional(bool()) })],
  ),
  deleteOAuthProvider: args(['oauthProviderId', uuid()]),
  acceptTeamInvitationById: args(['invitationId', uuid()]),

  createCheckoutUrl: args(
    ['customer', customer<BillableCustomer>()],
    ['options', fields({ productId: segment(), returnUrl: optional(redirectTarget()) })],
  ),
  cancelSubscription: args(
    ['customer', customer<BillableCustomer>()],
    ['options', fields({ productId: segment(), subscriptionId: optional(segment()) })],
  ),
  switchSubscription: args(
    ['customer', customer<BillableCustomer>()],
    [
      'options',
      fields({
        fromProductId: segment(),
        toProductId: segment(),
        priceId: optional(segment()),
        quantity: optional(finiteNumber()),
      }),
    ],
  ),
  refreshPayments: args(['customer', customer<Customer>()]),

  adminSignInWithPassword: args(['input', signIn()]),
  adminSignInWithMfa: args(['input', mfa()]),
  adminSignOut: args(),
  adminCreateProject: args([
    'input',
    fields({
      displayName: nonEmpty(),
      description: optional(text()),
      config: optional(
        pipe(
          jsonObject(),
          transform((value) => value as NonNullable<ProjectUpdateModel['config']>),
        ),
      ),
    }),
  ]),
  adminUpdateProject: args(['update', projectSettings()], ['options', adminOptions()]),
  adminCreateApiKey: args(
    [
      'input',
      fields({
        description: nonEmpty(),
        expiresAtMillis: finiteNumber(),
        hasPublishableClientKey: bool(),
        hasSecretServerKey: bool(),
        hasSuperSecretAdminKey: bool(),
      }),
    ],
    ['options', adminOptions()],
  ),
  adminRevokeApiKey: args(['apiKeyId', uuid()], ['options', adminOptions()]),
  adminUpdateApiKey: args(
    ['apiKeyId', uuid()],
    ['update', fields({ description: text() })],
    ['options', adminOptions()],
  ),
  adminDeleteProject: args(['options', adminOptions()]),
  adminUpdateEmailTemplate: args(
    ['type', oneOf(emailTemplateTypes)],
    ['update', fields({ subject: optional(text()), content: optional(json()) })],
    ['options', adminOptions()],
  ),
  adminResetEmailTemplate: args(['type', oneOf(emailTemplateTypes)], ['options', adminOptions()]),
  adminCreatePermissionDefinition: args(
    ['input', fields({ id: segment(), ...permissionFields })],
    ['options', adminOptions()],
  ),
  adminUpdatePermissionDefinition: args(
    ['permissionId', segment()],
    ['update', fields({ id: optional(segment()), ...permissionFields })],
    ['options', adminOptions()],
  ),
  adminDeletePermissionDefinition: args(['permissionId', segment()], ['options', adminOptions()]),
  adminSendTestEmail: args(
    [
      'input',
      fields({
        recipientEmail: email(),
        emailConfig: fields({
          host: nonEmpty(),
          port: finiteNumber(),
          username: text(),
          password: text(),
          senderName: text(),
          senderEmail: email(),
        }),
      }),
    ],
    ['options', adminOptions()],
  ),
  adminCreateSvixToken: args(['options', adminOptions()]),
} satisfies Rules;

const queryKinds = Object.keys(queries);

/** Checks and copies the arguments of a call to `method`. */
export function parseArguments<K extends MethodName>(method: K, values: readonly unknown[]): Parameters<BrokerApi[K]> {
  const rules = argumentRules[method] as ArgumentList<Parameters<BrokerApi[K]>> | undefined;
  if (rules === undefined)
    throw new InvalidArgumentError('method', `The broker has no method ${JSON.stringify(method)}.`);
  return rules.parse(method, values);
}

/**
 * The first check of everything a tab sent, before the per-method rules: the number of arguments
 * first (nothing is walked for a call with too many), then one bounded pass over their values
 * (`plainData.ts`).
 */
export function checkPlainData(method: string, values: readonly unknown[]): void {
  const names = Object.hasOwn(argumentRules, method) ? argumentRules[method as MethodName].names : [];
  if (values.length > names.length) throw tooManyArguments(method, names.length, values.length);
  checkPlainValues(method, values, names);
}
