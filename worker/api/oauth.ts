import type { BrokerApi, OAuthResult } from '../../contract/api.js';
import { ClientError } from '../../protocol/errors/errors.js';
import { isKnownError } from '../../protocol/errors/knownError.js';
import {
  buildAuthorizeUrl,
  redirectUriOfFlow,
  createOAuthState,
  createPkcePair,
  exchangeAuthorizationCode,
  knownErrorFromRedirect,
} from '../../protocol/authorizationCode.js';
import { anonymousAccessToken } from './anonymous.js';
import type { ApiContext } from './context.js';

/** OAuth flows older than this are forgotten (the service's own limit is 10 minutes). */
const OAUTH_FLOW_LIFETIME_MILLIS = 60 * 60 * 1000;

/**
 * The broker's half of OAuth: it keeps the flow's secrets (PKCE verifier, state) and redeems the
 * code; the tab only navigates. A flow may complete in any tab, once.
 */
export function oauthMethods({
  config,
  clock,
  session,
  transports,
  queries,
  oauthFlows,
}: Pick<ApiContext, 'config' | 'clock' | 'session' | 'transports' | 'queries' | 'oauthFlows'>): Pick<
  BrokerApi,
  'startOAuth' | 'completeOAuth'
> {
  return {
    async startOAuth(input) {
      const providerId = input.providerId.toLowerCase();
      const type = input.type ?? 'authenticate';
      let token: string | undefined;
      if (type === 'link') {
        token = (await session.getAccessToken()) ?? undefined;
        if (token === undefined) throw new ClientError('NOT_SIGNED_IN', 'Sign in before linking another account.');
      } else {
        // An anonymous user signed in is upgraded by the sign-up this flow may make: the service needs its token.
        token = (await anonymousAccessToken(session)) ?? undefined;
      }
      const [{ codeVerifier, codeChallenge }, state] = [await createPkcePair(), createOAuthState()];
      const redirectUri = redirectUriOfFlow(input.redirectUri, state);
      const now = clock.now();
      const after = input.afterCallbackRedirectUrl ?? null;
      await oauthFlows.pruneOAuthFlows(now - OAUTH_FLOW_LIFETIME_MILLIS).catch(() => undefined);
      await oauthFlows.putOAuthFlow({
        state,
        projectId: config.projectId,
        baseUrl: config.baseUrl,
        codeVerifier,
        redirectUri,
        type,
        afterCallbackRedirectUrl: after,
        createdAtMillis: now,
      });
      const url = buildAuthorizeUrl(config, {
        providerId,
        redirectUri,
        state,
        codeChallenge,
        type,
        ...(token === undefined ? {} : { token }),
        ...(input.scopes === undefined || input.scopes.length === 0 ? {} : { providerScope: input.scopes.join(' ') }),
        ...(input.errorRedirectUrl === undefined
          ? {}
          : { errorRedirectUrl: withFlowState(input.errorRedirectUrl, state) }),
        ...(after === null ? {} : { afterCallbackRedirectUrl: after }),
      });
      return { url };
    },

    async completeOAuth({ callbackUrl: callbackText }): Promise<OAuthResult> {
      const callbackUrl = new URL(callbackText);
      const params = callbackUrl.searchParams;
      const state = params.get('state');
      const isError = params.has('errorCode') || params.has('error');
      // Anyone can link to the callback page: nothing its address says is read, let alone shown,
      // before its state names a flow this browser started. (Errors carry the state because the
      // error URL was given it when the flow started: withFlowState.)
      if (state === null || (!isError && params.get('code') === null)) {
        throw new ClientError(
          'OAUTH_CALLBACK_INVALID',
          'This page was not opened by a sign-in started in this browser.',
        );
      }
      // Taking the flow deletes it: a callback completes once, in whichever tab it landed.
      const flow = await oauthFlows.takeOAuthFlow(state);
      // A flow started for another project or service is not ours to complete (and not ours to send there).
      if (
        flow === null ||
        flow.projectId !== config.projectId ||
        (flow.baseUrl !== undefined && flow.baseUrl !== config.baseUrl)
      ) {
        throw new ClientError(
          'OAUTH_FLOW_NOT_FOUND',
          'This sign-in was already completed or has expired. Please start again.',
        );
      }
      if (flow.createdAtMillis < clock.now() - OAUTH_FLOW_LIFETIME_MILLIS)
        throw new ClientError('OAUTH_FLOW_NOT_FOUND', 'This sign-in took too long. Please start again.');
      const redirected = knownErrorFromRedirect(callbackUrl);
      if (redirected !== null) throw redirected;
      // The app chose where to go when it started the flow; that wins over what the service echoes.
      const common = { type: flow.type, afterCallbackRedirectUrl: flow.afterCallbackRedirectUrl };
      try {
        const tokens = await exchangeAuthorizationCode(transports.tokenEndpoint('user'), {
          callbackUrl,
          expectedState: flow.state,
          redirectUri: flow.redirectUri,
          codeVerifier: flow.codeVerifier,
        });
        await session.signIn(tokens);
        const signedIn = session.state();
        if (flow.type === 'link') queries.invalidate({ kind: 'currentUser' });
        return {
          status: 'signed-in',
          userId: signedIn.status === 'signed-in' ? (signedIn.userId ?? '') : '',
          isNewUser: tokens.is_new_user,
          ...common,
          afterCallbackRedirectUrl: flow.afterCallbackRedirectUrl ?? tokens.after_callback_redirect_url,
        };
      } catch (error) {
        if (isKnownError(error, 'MULTI_FACTOR_AUTHENTICATION_REQUIRED'))
          return { status: 'mfa-required', attemptCode: error.details.attempt_code, ...common };
        throw error;
      }
    },
  };
}

/**
 * The error URL the service redirects a failed flow to when it cannot use the redirect URI, with the flow's state
 * added: the service keeps the URL's own query and adds `errorCode` to it, so the callback page can tell an error of
 * a flow this browser started from a crafted link.
 */
function withFlowState(errorRedirectUrl: string, state: string): string {
  const url = new URL(errorRedirectUrl);
  url.searchParams.set('state', state);
  return url.href;
}
