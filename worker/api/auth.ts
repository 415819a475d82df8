import type { BrokerApi, SignInResult } from '../../contract/api.js';
import { sessionEnd } from '../../contract/state.js';
import * as endpoints from '../../protocol/endpoints/index.js';
import { InvalidArgumentError } from '../../protocol/errors/errors.js';
import { isKnownError } from '../../protocol/errors/knownError.js';
import type { Json } from '../../protocol/resources/common.js';
import { readSignInTokens, type SignInTokens } from '../../protocol/signInResponse.js';
import { signUpUser } from './anonymous.js';
import type { ApiContext, ApiSession } from './context.js';

/**
 * Callback URLs the tab left out are filled in per tab before a method runs (worker/tabApi.ts); here they are always
 * given.
 */
export function required(callbackUrl: string | undefined): string {
  if (callbackUrl === undefined)
    throw new InvalidArgumentError(
      'callbackUrl',
      'A callback URL is needed (authbroker/client sends its handler pages).',
    );
  return callbackUrl;
}

/** Runs a first or second factor; TOTP users get `mfa-required` with the attempt code instead of an error. */
export async function signInWith(session: ApiSession, run: () => Promise<unknown>): Promise<SignInResult> {
  let response: SignInTokens;
  try {
    response = readSignInTokens(await run());
  } catch (error) {
    if (isKnownError(error, 'MULTI_FACTOR_AUTHENTICATION_REQUIRED'))
      return { status: 'mfa-required', attemptCode: error.details.attempt_code };
    throw error;
  }
  await session.signIn(response, response.user_id);
  const state = session.state();
  return {
    status: 'signed-in',
    userId: response.user_id ?? (state.status === 'signed-in' ? (state.userId ?? '') : ''),
    isNewUser: response.is_new_user ?? false,
  };
}

type AuthMethods =
  | 'signUpWithPassword'
  | 'signInWithPassword'
  | 'sendMagicLink'
  | 'signInWithMagicLink'
  | 'signInWithOtp'
  | 'signInWithMfa'
  | 'beginPasskeyRegistration'
  | 'finishPasskeyRegistration'
  | 'beginPasskeySignIn'
  | 'finishPasskeySignIn'
  | 'signOut';

/** Signing in and out. Arguments arrive checked (contract/arguments.ts). */
export function authMethods({
  transports,
  session,
  queries,
  connectivity,
  outbox,
  clock,
}: Pick<ApiContext, 'transports' | 'session' | 'queries' | 'connectivity' | 'outbox' | 'clock'>): Pick<
  BrokerApi,
  AuthMethods
> {
  const t = transports.client;
  return {
    async signUpWithPassword({ email, password, verificationCallbackUrl }) {
      const user = await signUpUser(session);
      const result = await signInWith(session, () =>
        endpoints.signUpWithPassword(
          t,
          { email, password, verification_callback_url: required(verificationCallbackUrl) },
          { user },
        ),
      );
      return result.status === 'signed-in' ? { ...result, isNewUser: true } : result;
    },
    signInWithPassword: ({ email, password }) =>
      signInWith(session, () => endpoints.signInWithPassword(t, { email, password })),
    async sendMagicLink({ email, callbackUrl }) {
      const { nonce } = await endpoints.sendOtpSignInCode(t, { email, callback_url: required(callbackUrl) });
      return { nonce };
    },
    // A code for an e-mail nobody has signs up: an anonymous user signed in is upgraded.
    signInWithMagicLink: async (code) => {
      const user = await signUpUser(session);
      return signInWith(session, () => endpoints.signInWithOtp(t, code, { user }));
    },
    signInWithOtp: async ({ otp, nonce }) => {
      const user = await signUpUser(session);
      return signInWith(session, () => endpoints.signInWithOtp(t, endpoints.otpCodeFromTyped(otp, nonce), { user }));
    },
    signInWithMfa: ({ attemptCode, totp }) =>
      signInWith(session, () => endpoints.signInWithMfa(t, { attempt_code: attemptCode, totp })),
    async beginPasskeyRegistration() {
      const { options_json, code } = await endpoints.initiatePasskeyRegistration(t);
      return { optionsJson: options_json as unknown as Record<string, Json>, code };
    },
    async finishPasskeyRegistration({ credential, code }) {
      await endpoints.registerPasskey(t, { credential, code });
      queries.invalidate({ kind: 'currentUser' });
    },
    async beginPasskeySignIn() {
      const { options_json, code } = await endpoints.initiatePasskeyAuthentication(t);
      return { optionsJson: options_json as unknown as Record<string, Json>, code };
    },
    finishPasskeySignIn: ({ response, code }) =>
      signInWith(session, () => endpoints.signInWithPasskey(t, { authentication_response: response, code })),

    async signOut() {
      await session.start();
      const key = session.sessionKey;
      if (key === null) return;
      const refreshToken = await session.getRefreshToken();
      // Never renew the access token to sign out: a renewal waits for the network, and the local
      // sign-out must not. Without a usable token the call is kept and sent (after a renewal) later.
      const accessToken = await session.currentAccessToken();
      let queued = connectivity.isOffline || accessToken === null;
      if (!queued) {
        try {
          // One attempt: on a network failure the sign-out is kept and sent when the network returns.
          await endpoints.signOutCurrentSession(transports.withAccessToken(accessToken!), { maxAttempts: 1 });
        } catch (error) {
          // Already gone on the service side: signing out here is all that is left to do. Anything
          // else (no network, a server error, a token the service found expired) keeps the call to
          // send later, with a renewed token; the local sign-out stands.
          queued = !isKnownError(error, 'REFRESH_TOKEN_ERROR');
        }
      }
      if (queued && refreshToken !== null) await outbox.queueSignOut(refreshToken);
      await session.end(sessionEnd('signed-out', clock.now()), key);
      if (queued) void outbox.flush();
    },
  };
}
