import { stripOAuthCallbackParams } from '../protocol/urls.js';
import type { BrokerApi, OAuthResult } from '../contract/api.js';
import type { HandlerUrls } from './handlerUrls.js';

export interface OAuthSignInOptions {
  /** Where the provider sends the browser back; default the oauth-callback handler page. */
  redirectUri?: string;
  /** Where to go after the callback page; default the after-sign-in / after-sign-up page. */
  afterCallbackRedirectUrl?: string;
  /** Where errors during the callback are shown; default the error handler page. */
  errorRedirectUrl?: string;
  /** Extra provider scopes (space-separated), e.g. for connected-account tokens. */
  providerScope?: string;
}

/** The OAuth steps only a window can take: navigating away and cleaning the address bar. */
export function oauthMethods(api: () => Promise<BrokerApi>, urls: HandlerUrls) {
  return {
    async signInWithOAuth(providerId: string, options: OAuthSignInOptions = {}): Promise<void> {
      const { url } = await (await api()).startOAuth({
        providerId,
        redirectUri: options.redirectUri ?? urls.oauthCallback,
        errorRedirectUrl: options.errorRedirectUrl ?? urls.error,
        ...(options.afterCallbackRedirectUrl === undefined ? {} : { afterCallbackRedirectUrl: options.afterCallbackRedirectUrl }),
        ...(options.providerScope === undefined ? {} : { providerScope: options.providerScope }),
      });
      location.assign(url);
    },

    /** Links another provider account to the signed-in user, then comes back to this page. */
    async linkOAuthAccount(providerId: string, scopes: string[] = []): Promise<void> {
      const { url } = await (await api()).startOAuth({
        providerId,
        type: 'link',
        redirectUri: urls.oauthCallback,
        errorRedirectUrl: urls.error,
        afterCallbackRedirectUrl: location.href,
        ...(scopes.length === 0 ? {} : { providerScope: scopes.join(' ') }),
      });
      location.assign(url);
    },

    async handleOAuthCallback(options: { navigate?: boolean } = {}): Promise<OAuthResult> {
      const callbackUrl = location.href;
      // The code and state leave the address bar (and the history) before anything else happens.
      history.replaceState(history.state, '', stripOAuthCallbackParams(callbackUrl));
      const result = await (await api()).completeOAuth({ callbackUrl });
      if (result.status === 'signed-in' && options.navigate !== false) {
        location.replace(result.afterCallbackRedirectUrl ?? (result.isNewUser ? urls.afterSignUp : urls.afterSignIn));
      }
      return result;
    },
  };
}
