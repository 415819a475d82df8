/**
 * One pass of an official `@stackframe/js` release through the basic flows, written against the
 * few methods every release from 2.7.23 to 2.8.108 has. Runs in Node and in a page (bundled by
 * test/e2e/officialSdk.test.ts), so it imports nothing; the caller moves the emulator's clock.
 */

/** What the flow uses of a user object of the SDK. */
export interface SdkUser {
  id: string;
  primaryEmail: string | null;
  displayName: string | null;
  update(update: { displayName: string }): Promise<void>;
  createTeam(data: { displayName: string }): Promise<{ id: string }>;
  listTeams(): Promise<Array<{ id: string; displayName: string }>>;
  signOut(): Promise<void>;
  getAuthJson(): Promise<{ accessToken: string | null }>;
}

type SdkResult = { status: 'ok' } | { status: 'error'; error: unknown };

/** What the flow uses of `StackClientApp`. */
export interface SdkApp {
  signUpWithCredential(options: {
    email: string;
    password: string;
    noRedirect: true;
    verificationCallbackUrl: string;
  }): Promise<SdkResult>;
  signInWithCredential(options: { email: string; password: string; noRedirect: true }): Promise<SdkResult>;
  getUser(): Promise<SdkUser | null>;
}

export interface SdkAppOptions {
  baseUrl: string;
  projectId: string;
  publishableClientKey: string;
  tokenStore: 'memory' | 'cookie';
  redirectMethod: 'none';
}

export type SdkAppClass = new (options: SdkAppOptions) => SdkApp;

export interface SdkFlowOptions extends Omit<SdkAppOptions, 'redirectMethod'> {
  email: string;
  password: string;
  verificationCallbackUrl: string;
  /** Moves the emulator's clock by this many milliseconds (negative: back). */
  shiftEmulatorClock(millis: number): Promise<void>;
  /**
   * How far back the clock goes while signing in, so the token issued is already expired: the access-token lifetime and
   * a minute.
   */
  expiredByMillis: number;
}

export interface SdkFlowResult {
  signedUpUser: { id: string; primaryEmail: string | null };
  /** The display name read back, after the user was updated. */
  updatedDisplayName: string | null;
  /** The team the user created, and the teams listed after. */
  createdTeamId: string;
  teamIds: string[];
  signedOutUser: null;
  signedInUser: { id: string; primaryEmail: string | null };
  /** The access token the SDK holds after reading the user with an expired one. */
  signedInAccessToken: string;
}

function ok(result: SdkResult, step: string): void {
  if (result.status !== 'ok') throw new Error(`${step} failed: ${String((result as { error: unknown }).error)}`);
}

async function requireUser(app: SdkApp, step: string): Promise<SdkUser> {
  const user = await app.getUser();
  if (user === null) throw new Error(`${step}: the SDK has no signed-in user.`);
  return user;
}

/**
 * Sign up, read the user, update it and read it again, create a team and list the user's teams, sign out, sign in with
 * a
 * token that has already expired, then read the user (the SDK refreshes first) and take its access token.
 */
export async function runSdkFlow(StackClientApp: SdkAppClass, options: SdkFlowOptions): Promise<SdkFlowResult> {
  const app = new StackClientApp({
    baseUrl: options.baseUrl,
    projectId: options.projectId,
    publishableClientKey: options.publishableClientKey,
    tokenStore: options.tokenStore,
    redirectMethod: 'none',
  });
  const { email, password } = options;
  ok(
    await app.signUpWithCredential({
      email,
      password,
      noRedirect: true,
      verificationCallbackUrl: options.verificationCallbackUrl,
    }),
    'sign-up',
  );
  const signedUp = await requireUser(app, 'after sign-up');
  const signedUpUser = { id: signedUp.id, primaryEmail: signedUp.primaryEmail };
  await signedUp.update({ displayName: `Renamed ${email}` });
  const updatedDisplayName = (await requireUser(app, 'after update')).displayName;
  const createdTeamId = (await signedUp.createTeam({ displayName: 'SDK team' })).id;
  const teamIds = (await signedUp.listTeams()).map((team) => team.id);
  await signedUp.signOut();
  const signedOutUser = await app.getUser();
  if (signedOutUser !== null) throw new Error('after sign-out: the SDK still has a user.');

  await options.shiftEmulatorClock(-options.expiredByMillis);
  try {
    ok(await app.signInWithCredential({ email, password, noRedirect: true }), 'sign-in');
  } finally {
    await options.shiftEmulatorClock(options.expiredByMillis);
  }
  const signedIn = await requireUser(app, 'after sign-in');
  const { accessToken } = await signedIn.getAuthJson();
  if (accessToken === null) throw new Error('after sign-in: the SDK has no access token.');
  return {
    signedUpUser,
    updatedDisplayName,
    createdTeamId,
    teamIds,
    signedOutUser,
    signedInUser: { id: signedIn.id, primaryEmail: signedIn.primaryEmail },
    signedInAccessToken: accessToken,
  };
}
