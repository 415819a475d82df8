import { requireNonEmptyString, requireSegment, requireString, requireUrl } from '../../protocol/args.js';
import * as endpoints from '../../protocol/endpoints/index.js';
import { ClientError, InvalidArgumentError } from '../../protocol/errors/errors.js';
import { isKnownError } from '../../protocol/errors/knownError.js';
import type { Json } from '../../protocol/resources/common.js';
import { buildAuthorizeUrl, createOAuthState, createPkcePair, exchangeAuthorizationCode, knownErrorFromRedirect } from '../../protocol/tokens.js';
import { createTransport, staticTokenSource } from '../../protocol/transport.js';
import { stripOAuthCallbackParams } from '../../protocol/validation.js';
import type { BrokerCore } from '../core.js';
import { sessionEnd, type Session } from '../session.js';
import { flushOutbox, queueSignOut } from '../outbox.js';
import { requireInput } from './args.js';
import type { BrokerApi, OAuthResult, SignInResult } from './types.js';

interface SignInResponse {
  access_token: string;
  refresh_token: string;
  user_id?: string;
  is_new_user?: boolean;
}

/** Runs a first or second factor; TOTP users get `mfa-required` with the attempt code instead of an error. */
export async function signInWith(session: Session, run: () => Promise<SignInResponse>): Promise<SignInResult> {
  let response: SignInResponse;
  try {
    response = await run();
  } catch (error) {
    if (isKnownError(error, 'MULTI_FACTOR_AUTHENTICATION_REQUIRED')) return { status: 'mfa-required', attemptCode: error.details.attempt_code };
    throw error;
  }
  await session.signIn(response, response.user_id);
  const state = session.state();
  return { status: 'signed-in', userId: response.user_id ?? (state.status === 'signed-in' ? (state.userId ?? '') : ''), isNewUser: response.is_new_user ?? false };
}

/** OAuth flows older than this are forgotten (the service's own limit is 10 minutes). */
const OAUTH_FLOW_LIFETIME_MILLIS = 60 * 60 * 1000;

function requireCallbackUrl(value: unknown): URL {
  const text = requireUrl(value, 'callbackUrl');
  return new URL(text);
}

export function authMethods(core: BrokerCore): Pick<
  BrokerApi,
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
  | 'startOAuth'
  | 'completeOAuth'
  | 'signOut'
> {
  const t = core.client;
  const { session } = core;
  return {
    async signUpWithPassword(input) {
      const i = requireInput(input, 'input', ['email', 'password', 'verificationCallbackUrl']);
      return signInWith(session, () =>
        endpoints.signUpWithPassword(t, { email: i.email as string, password: i.password as string, verification_callback_url: i.verificationCallbackUrl as string }),
      ).then((result) => (result.status === 'signed-in' ? { ...result, isNewUser: true } : result));
    },
    async signInWithPassword(input) {
      const i = requireInput(input, 'input', ['email', 'password']);
      return signInWith(session, () => endpoints.signInWithPassword(t, { email: i.email as string, password: i.password as string }));
    },
    async sendMagicLink(input) {
      const i = requireInput(input, 'input', ['email', 'callbackUrl']);
      const { nonce } = await endpoints.sendOtpSignInCode(t, { email: i.email as string, callback_url: i.callbackUrl as string });
      return { nonce };
    },
    async signInWithMagicLink(code) {
      return signInWith(session, () => endpoints.signInWithOtp(t, requireNonEmptyString(code, 'code')));
    },
    async signInWithOtp(input) {
      const i = requireInput(input, 'input', ['otp', 'nonce']);
      const otp = requireNonEmptyString(i.otp, 'otp').trim();
      if (!/^[0-9a-z]{6}$/i.test(otp)) throw new InvalidArgumentError('otp', 'The code has 6 letters and digits.');
      return signInWith(session, () => endpoints.signInWithOtp(t, endpoints.otpCodeFromTyped(otp, requireString(i.nonce, 'nonce'))));
    },
    async signInWithMfa(input) {
      const i = requireInput(input, 'input', ['attemptCode', 'totp']);
      const totp = requireNonEmptyString(i.totp, 'totp').replace(/\s+/g, '');
      if (!/^\d{6}$/.test(totp)) throw new InvalidArgumentError('totp', 'The authenticator code has 6 digits.');
      return signInWith(session, () => endpoints.signInWithMfa(t, { attempt_code: i.attemptCode as string, totp }));
    },
    async beginPasskeyRegistration() {
      const { options_json, code } = await endpoints.initiatePasskeyRegistration(t);
      return { optionsJson: options_json as unknown as Record<string, Json>, code };
    },
    async finishPasskeyRegistration(input) {
      const i = requireInput(input, 'input', ['credential', 'code']);
      await endpoints.registerPasskey(t, { credential: i.credential as Json, code: i.code as string });
      core.invalidate({ kind: 'currentUser' });
    },
    async beginPasskeySignIn() {
      const { options_json, code } = await endpoints.initiatePasskeyAuthentication(t);
      return { optionsJson: options_json as unknown as Record<string, Json>, code };
    },
    async finishPasskeySignIn(input) {
      const i = requireInput(input, 'input', ['response', 'code']);
      return signInWith(session, () => endpoints.signInWithPasskey(t, { authentication_response: i.response as Json, code: i.code as string }));
    },

    async startOAuth(input) {
      const i = requireInput(input, 'input', ['providerId', 'redirectUri', 'type', 'providerScope', 'errorRedirectUrl', 'afterCallbackRedirectUrl']);
      const providerId = requireSegment(i.providerId, 'providerId').toLowerCase();
      const redirectUri = stripOAuthCallbackParams(requireUrl(i.redirectUri, 'redirectUri'));
      const type = i.type ?? 'authenticate';
      if (type !== 'authenticate' && type !== 'link') throw new InvalidArgumentError('type', 'type must be "authenticate" or "link".');
      let token: string | undefined;
      if (type === 'link') {
        token = (await session.getAccessToken()) ?? undefined;
        if (token === undefined) throw new ClientError('NOT_SIGNED_IN', 'Sign in before linking another account.');
      }
      const [{ codeVerifier, codeChallenge }, state] = [await createPkcePair(), createOAuthState()];
      const now = core.clock.now();
      const after = i.afterCallbackRedirectUrl === undefined ? null : requireString(i.afterCallbackRedirectUrl, 'afterCallbackRedirectUrl');
      await core.storage.pruneOAuthFlows(now - OAUTH_FLOW_LIFETIME_MILLIS).catch(() => undefined);
      await core.storage.putOAuthFlow({ state, projectId: core.config.projectId, codeVerifier, redirectUri, type, afterCallbackRedirectUrl: after, createdAtMillis: now });
      const url = buildAuthorizeUrl(core.config, {
        providerId,
        redirectUri,
        state,
        codeChallenge,
        type,
        ...(token === undefined ? {} : { token }),
        ...(i.providerScope === undefined ? {} : { providerScope: requireString(i.providerScope, 'providerScope') }),
        ...(i.errorRedirectUrl === undefined ? {} : { errorRedirectUrl: requireUrl(i.errorRedirectUrl, 'errorRedirectUrl') }),
        ...(after === null ? {} : { afterCallbackRedirectUrl: after }),
      });
      return { url };
    },

    async completeOAuth(input): Promise<OAuthResult> {
      const i = requireInput(input, 'input', ['callbackUrl']);
      const callbackUrl = requireCallbackUrl(i.callbackUrl);
      const redirected = knownErrorFromRedirect(callbackUrl);
      if (redirected !== null) throw redirected;
      const state = callbackUrl.searchParams.get('state');
      if (state === null || callbackUrl.searchParams.get('code') === null) {
        throw new ClientError('OAUTH_CALLBACK_INVALID', 'This page was not opened by a sign-in provider (no code or state in its address).');
      }
      // Taking the flow deletes it: a callback completes once, in whichever tab it landed.
      const flow = await core.storage.takeOAuthFlow(state);
      if (flow === null || flow.projectId !== core.config.projectId) {
        throw new ClientError('OAUTH_FLOW_NOT_FOUND', 'This sign-in was already completed or has expired. Please start again.');
      }
      if (flow.createdAtMillis < core.clock.now() - OAUTH_FLOW_LIFETIME_MILLIS) throw new ClientError('OAUTH_FLOW_NOT_FOUND', 'This sign-in took too long. Please start again.');
      const common = { type: flow.type, afterCallbackRedirectUrl: flow.afterCallbackRedirectUrl };
      try {
        const tokens = await exchangeAuthorizationCode(core.tokenEndpoint('user'), {
          callbackUrl,
          expectedState: flow.state,
          redirectUri: flow.redirectUri,
          codeVerifier: flow.codeVerifier,
        });
        await session.signIn(tokens);
        const state_ = session.state();
        if (flow.type === 'link') core.invalidate({ kind: 'currentUser' });
        return {
          status: 'signed-in',
          userId: state_.status === 'signed-in' ? (state_.userId ?? '') : '',
          isNewUser: tokens.is_new_user,
          ...common,
          afterCallbackRedirectUrl: tokens.after_callback_redirect_url ?? flow.afterCallbackRedirectUrl,
        };
      } catch (error) {
        if (isKnownError(error, 'MULTI_FACTOR_AUTHENTICATION_REQUIRED')) return { status: 'mfa-required', attemptCode: error.details.attempt_code, ...common };
        throw error;
      }
    },

    async signOut() {
      await session.start();
      const key = session.sessionKey;
      if (key === null) return;
      const refreshToken = await session.getRefreshToken();
      // Never renew the access token to sign out: a renewal waits for the network, and the local
      // sign-out must not. Without a usable token the call is kept and sent (after a renewal) later.
      const accessToken = await session.currentAccessToken();
      let queued = core.connectivity.isOffline || accessToken === null;
      if (!queued) {
        try {
          // One attempt: on a network failure the sign-out is kept and sent when the network returns.
          await endpoints.signOutCurrentSession(core.client.withUserTokens(staticTokenSource(accessToken!)), { maxAttempts: 1 });
        } catch (error) {
          // Already gone on the service side: signing out here is all that is left to do. Anything
          // else (no network, a server error, a token the service found expired) keeps the call to
          // send later, with a renewed token; the local sign-out stands.
          queued = !isKnownError(error, 'REFRESH_TOKEN_ERROR');
        }
      }
      if (queued && refreshToken !== null) {
        await queueSignOut(core, refreshToken, null);
      }
      await session.end(sessionEnd('signed-out', core.clock.now()), key);
      if (queued) void flushOutbox(core);
    },
  };
}

/** Tokens for the `internal` project, where project owners sign in (no user tokens sent). */
export function internalSignInTransport(core: BrokerCore) {
  return createTransport({
    baseUrl: core.config.baseUrl,
    projectId: 'internal',
    accessType: 'client',
    publishableClientKey: core.config.internalPublishableClientKey,
    fetch: core.fetch,
    clock: core.clock,
  });
}
