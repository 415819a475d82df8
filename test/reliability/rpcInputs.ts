import fc from 'fast-check';
import type { BrokerApi } from '../../worker/index.js';
import { DANGEROUS_KEYS, jsonText, junkTree, nastyString } from './fuzzInputs.js';

const APP = 'http://localhost:5173';
const UUID = '6f1c1a52-3c1e-4b8e-9a3f-0c9d1f3b2a11';
const CODE = 'x'.repeat(45);

/**
 * Valid-looking arguments for every BrokerApi method, the starting point of the mutations. Each
 * fails on the service side as it stands (unknown ids, wrong passwords, no admin session), so a
 * mutation that keeps it valid changes nothing either. Left out: the calls that end or start the
 * session or end the tab by design whatever their arguments (signOut, deleteUser, goodbye,
 * signUpAnonymously, which takes none).
 */
export const RPC_TEMPLATES: Record<
  Exclude<keyof BrokerApi, 'signOut' | 'deleteUser' | 'goodbye' | 'signUpAnonymously'>,
  unknown[]
> = {
  status: [],
  subscribe: ['fuzz-sub', { kind: 'team', teamId: UUID }],
  unsubscribe: ['fuzz-sub'],
  read: [{ kind: 'team', teamId: UUID }],
  refetch: [{ kind: 'permissions', teamId: UUID, recursive: true }],
  reportBrowserState: [{ online: true, visible: true }],
  watchLifetime: ['authbroker:tab:fuzz'],
  getAccessToken: [],
  configProblems: [],
  signUpWithPassword: [
    { email: 'demo@authbroker.dev', password: 'long-enough-password', verificationCallbackUrl: `${APP}/v` },
  ],
  signInWithPassword: [{ email: 'demo@authbroker.dev', password: 'not-the-password' }],
  sendMagicLink: [{ email: 'nobody@example.com', callbackUrl: `${APP}/magic` }],
  signInWithMagicLink: [CODE],
  signInWithOtp: [{ otp: 'abc123', nonce: 'nonce' }],
  signInWithMfa: [{ attemptCode: CODE, totp: '123456' }],
  beginPasskeyRegistration: [],
  finishPasskeyRegistration: [{ credential: { id: 'x', response: {} }, code: CODE }],
  beginPasskeySignIn: [],
  finishPasskeySignIn: [{ response: { id: 'x', response: {} }, code: CODE }],
  startOAuth: [
    {
      providerId: 'github',
      redirectUri: `${APP}/cb`,
      type: 'authenticate',
      errorRedirectUrl: `${APP}/error`,
      afterCallbackRedirectUrl: `${APP}/after`,
    },
  ],
  completeOAuth: [{ callbackUrl: `${APP}/cb?code=abc&state=unknown-state` }],
  sendPasswordResetEmail: [{ email: 'nobody@example.com', callbackUrl: `${APP}/reset` }],
  checkPasswordResetCode: [CODE],
  resetPassword: [{ code: CODE, password: 'new-password-123' }],
  updatePassword: [{ oldPassword: 'not-the-password', newPassword: 'new-password-123' }],
  setPassword: [{ password: 'new-password-123' }],
  updateUser: [{ displayName: 'Fuzzed', clientMetadata: { a: [1, { b: null }] }, selectedTeamId: UUID }],
  setSelectedTeam: [UUID],
  createContactChannel: [{ email: 'fuzz-rpc@example.com', usedForAuth: false, isPrimary: false }],
  updateContactChannel: [UUID, { email: 'fuzz-rpc2@example.com', usedForAuth: false, isPrimary: false }],
  deleteContactChannel: [UUID],
  sendContactChannelVerification: [UUID, `${APP}/verify`],
  verifyEmail: [CODE],
  checkEmailVerificationCode: [CODE],
  revokeSession: [UUID],
  getConnectedAccountAccessToken: ['github', { scopes: ['repo'] }],
  updateNotificationPreference: [UUID, { enabled: false }],
  createTeam: [{ displayName: 'Fuzz team', profileImageUrl: null, clientMetadata: { k: 'v' } }],
  updateTeam: [UUID, { displayName: 'x', profileImageUrl: null, clientMetadata: {} }],
  deleteTeam: [UUID],
  leaveTeam: [UUID],
  removeTeamMember: [UUID, UUID],
  updateTeamProfile: [UUID, { displayName: 'x', profileImageUrl: null }],
  inviteToTeam: [{ teamId: UUID, email: 'invitee@example.com', callbackUrl: `${APP}/invite` }],
  revokeTeamInvitation: [{ teamId: UUID, invitationId: UUID }],
  acceptTeamInvitation: [CODE],
  checkTeamInvitationCode: [CODE],
  getTeamInvitationDetails: [CODE],
  getPartialUser: [{ includeAnonymous: true }],
  getAuthHeaders: [],
  confirmCliLogin: [CODE],
  createUserApiKey: [{ description: 'fuzz', expiresAtMillis: null }],
  revokeUserApiKey: [UUID],
  createTeamApiKey: [UUID, { description: 'fuzz', expiresAtMillis: Date.now() + 60_000, isPublic: true }],
  revokeTeamApiKey: [UUID, UUID],
  updateOAuthProvider: [UUID, { allowSignIn: false, allowConnectedAccounts: true }],
  deleteOAuthProvider: [UUID],
  acceptTeamInvitationById: [UUID],
  adminSignInWithPassword: [{ email: 'admin@authbroker.dev', password: 'not-the-password' }],
  adminSignInWithMfa: [{ attemptCode: CODE, totp: '123456' }],
  adminSignOut: [],
  adminCreateProject: [{ displayName: 'Fuzz project', description: 'd', config: {} }],
  adminUpdateProject: [{ displayName: 'x' }, { projectId: UUID }],
  adminCreateApiKey: [
    {
      description: 'k',
      expiresAtMillis: 1e13,
      hasPublishableClientKey: true,
      hasSecretServerKey: false,
      hasSuperSecretAdminKey: false,
    },
    {},
  ],
  adminRevokeApiKey: [UUID, {}],
  adminUpdateApiKey: [UUID, { description: 'fuzzed key' }, {}],
  adminDeleteProject: [{ projectId: 'fuzz-project-that-does-not-exist' }],
  adminUpdateEmailTemplate: ['email_verification', { subject: 'x', content: {} }, {}],
  adminResetEmailTemplate: ['email_verification', {}],
  adminCreatePermissionDefinition: [{ id: 'fuzz_permission', description: 'd', containedPermissionIds: [] }, {}],
  adminUpdatePermissionDefinition: ['fuzz_permission', { description: 'x' }, {}],
  adminDeletePermissionDefinition: ['fuzz_permission', {}],
  adminSendTestEmail: [
    {
      recipientEmail: 'a@example.com',
      emailConfig: { host: 'h', port: 25, username: 'u', password: 'p', senderName: 'n', senderEmail: 's@example.com' },
    },
    {},
  ],
  adminCreateSvixToken: [{}],
  appToken: ['not-a-token'],
  sendAppRequest: [
    {
      url: `${APP}/api/notes/1`,
      method: 'PUT',
      headers: [['content-type', 'text/plain']],
      body: null,
      idempotencyKey: 'k1',
    },
  ],
  dismissPendingChange: ['no-such-change'],
  createCheckoutUrl: [{ userId: UUID }, { productId: 'credit_pack', returnUrl: 'http://localhost:5173/shop' }],
  cancelSubscription: [{ teamId: UUID }, { productId: 'pro' }],
  switchSubscription: [{ userId: UUID }, { fromProductId: 'starter', toProductId: 'pro', priceId: 'monthly' }],
  refreshPayments: [{ customCustomerId: 'shop-42' }],
};

const leaves = fc.oneof(
  nastyString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.date(),
  fc.bigInt(),
);

/** Values a tab could post: structured-clone types, own `__proto__` keys, nasty strings, oversized and too deep. */
export function junkValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.anything({
        key: fc.oneof(fc.constantFrom(...DANGEROUS_KEYS), fc.string()),
        values: [leaves],
        maxDepth: 3,
        withMap: true,
        withSet: true,
        withTypedArray: true,
        withNullPrototype: true,
        withSparseArray: true,
        withBoxedValues: true,
      }),
    },
    // Parsed JSON keeps `__proto__` as an own key, as a structured clone of parsed JSON would.
    { weight: 3, arbitrary: junkTree.map((tree) => JSON.parse(jsonText(tree)) as unknown) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'x'.repeat(1_048_577),
        deep(70),
        [],
        {},
        '',
        ' ',
        -1,
        Number.NaN,
        Number.POSITIVE_INFINITY,
      ),
    },
  );
}

function deep(levels: number): unknown {
  return levels === 0 ? 'bottom' : { next: deep(levels - 1) };
}

interface ArgMutation {
  at: number;
  op: 'replace' | 'delete' | 'extra' | 'proto' | 'drop-argument' | 'add-argument';
  key: string;
  junk: unknown;
}

/** Own-property assignment, so that `__proto__` becomes a key and not a prototype. */
function define(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Every (container, key) slot in the arguments, outermost first. */
function slots(
  value: unknown,
  out: Array<[Record<string, unknown>, string]> = [],
): Array<[Record<string, unknown>, string]> {
  if (typeof value !== 'object' || value === null) return out;
  // Into arrays and plain records only (a typed array's or a Date's insides are not arguments).
  const proto = Object.getPrototypeOf(value) as unknown;
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return out;
  for (const key of Object.keys(value)) {
    out.push([value as Record<string, unknown>, key]);
    slots((value as Record<string, unknown>)[key], out);
  }
  return out;
}

function applyArgs(template: unknown[], mutations: ArgMutation[]): unknown[] {
  const args = structuredClone(template);
  for (const m of mutations) {
    if (m.op === 'drop-argument') args.splice(m.at % Math.max(1, args.length), 1);
    else if (m.op === 'add-argument') args.push(m.junk);
    else {
      const all = slots(args);
      const [container, key] = all[m.at % Math.max(1, all.length)] ?? [args as unknown as Record<string, unknown>, '0'];
      const current = container[key];
      if (m.op === 'replace') container[key] = m.junk;
      if (m.op === 'delete') delete container[key];
      const holder = typeof current === 'object' && current !== null ? (current as object) : container;
      if (m.op === 'extra') define(holder, m.key, m.junk);
      if (m.op === 'proto') define(holder, '__proto__', { polluted: 'yes', isAdmin: true });
    }
  }
  return args;
}

const argMutation = (junk: fc.Arbitrary<unknown>): fc.Arbitrary<ArgMutation> =>
  fc.record({
    at: fc.nat(),
    op: fc.constantFrom<ArgMutation['op']>(
      'replace',
      'replace',
      'delete',
      'extra',
      'proto',
      'drop-argument',
      'add-argument',
    ),
    key: fc.oneof(
      fc.constantFrom(...DANGEROUS_KEYS),
      nastyString.filter((s) => s.length < 100),
    ),
    junk,
  });

/** Arguments for one method: mutations of its template, or a random argument list. */
export function rpcArguments(method: string, template: unknown[]): fc.Arbitrary<unknown[]> {
  const junk = junkValue();
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .array(argMutation(junk), { minLength: 1, maxLength: 3 })
        .map((mutations) => applyArgs(template, mutations)),
    },
    { weight: 1, arbitrary: fc.array(junk, { maxLength: 4 }) },
  );
}
