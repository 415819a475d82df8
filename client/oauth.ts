import type { BrokerApi, OAuthResult } from '../contract/api.js';
import { stripOAuthCallbackParams } from '../protocol/urls.js';
import type { HandlerUrls } from './handlerUrls.js';
import type * as redirects from './redirects.js';

/** The options of {@link BrokerClient.signInWithOAuth}. */
export interface OAuthSignInOptions {
  /** Where the provider sends the browser back; default the oauth-callback handler page. */
  redirectUri?: string;
  /** Where to go after the callback page; default the after-sign-in / after-sign-up page. */
  afterCallbackRedirectUrl?: string;
  /** Where errors during the callback are shown; default the error handler page. */
  errorRedirectUrl?: string;
  /** Extra provider scopes, e.g. for connected-account tokens. */
  scopes?: string[];
}

/** A flow started without leaving the page (`startOAuthFlow`), e.g. for `chrome.identity.launchWebAuthFlow`. */
export interface OAuthFlowOptions {
  /**
   * Where the provider sends the browser back with the code: an URL the project trusts (an extension's
   * `identity.getRedirectURL()`).
   */
  redirectUri: string;
  /** `link` adds the provider account to the signed-in user. Default `authenticate`. */
  type?: 'authenticate' | 'link';
  /** Extra provider scopes. */
  scopes?: string[];
  /** Where errors are sent; default `redirectUri`, so that they come back the same way. */
  errorRedirectUrl?: string;
}

/**
 * The redirect checks, passed in by the client rather than imported: a lazily loaded module that
 * imported redirects.ts would have bundlers split it into a chunk of its own, which every page then
 * loads up front (authbroker/client exports the checks).
 */
export type RedirectChecks = Pick<typeof redirects, 'checkRedirectTarget' | 'safeRedirectTarget'>;

/** The OAuth steps only a window can take: navigating away and cleaning the address bar. */
export function oauthMethods(
  api: () => Promise<BrokerApi>,
  urls: HandlerUrls,
  allowedOrigins: readonly string[] = [],
  { checkRedirectTarget, safeRedirectTarget }: RedirectChecks,
  origin: string | null = null,
) {
  const rules = () => ({ origin: origin ?? location.origin, allowedOrigins });
  /**
   * The service sends a failed callback back to the callback page with its `errorCode`; once the broker has matched it
   * to a flow of this browser (and thrown it), the error page shows it, as it would an error sent there directly.
   */
  const showOnErrorPage = (error: unknown, callbackUrl: string, navigate: boolean): never => {
    const code = (error as { code?: unknown } | null)?.code;
    if (navigate && typeof code === 'string' && new URL(callbackUrl).searchParams.get('errorCode') === code) {
      const target = new URL(urls.error, location.href);
      target.searchParams.set('errorCode', code);
      location.replace(target.href);
    }
    throw error;
  };
  return {
    async startOAuthFlow(providerId: string, given: OAuthFlowOptions): Promise<{ url: string }> {
      // The broker checks every field (a missing redirectUri is its INVALID_ARGUMENT, naming it).
      const options = given ?? ({} as OAuthFlowOptions);
      return (await api()).startOAuth({
        providerId,
        redirectUri: options.redirectUri,
        errorRedirectUrl: options.errorRedirectUrl ?? options.redirectUri,
        ...(options.type === undefined ? {} : { type: options.type }),
        ...(options.scopes === undefined || options.scopes.length === 0 ? {} : { scopes: options.scopes }),
      });
    },

    /** No address bar to clean and nowhere to go: the caller holds the URL, and decides what comes next. */
    async completeOAuthFlow(callbackUrl: string): Promise<OAuthResult> {
      return (await api()).completeOAuth({ callbackUrl });
    },

    async signInWithOAuth(providerId: string, options: OAuthSignInOptions = {}): Promise<void> {
      const { url } = await (
        await api()
      ).startOAuth({
        providerId,
        redirectUri: options.redirectUri ?? urls.oauthCallback,
        errorRedirectUrl: options.errorRedirectUrl ?? urls.error,
        // Checked now, where the app passed it: an unsafe target is the app's bug, not the callback page's.
        ...(options.afterCallbackRedirectUrl === undefined
          ? {}
          : { afterCallbackRedirectUrl: checkRedirectTarget(options.afterCallbackRedirectUrl, rules()) }),
        ...(options.scopes === undefined ? {} : { scopes: options.scopes }),
      });
      location.assign(url);
    },

    /** Links another provider account to the signed-in user, then comes back to this page. */
    async linkOAuthAccount(providerId: string, scopes: string[] = []): Promise<void> {
      const { url } = await (
        await api()
      ).startOAuth({
        providerId,
        type: 'link',
        redirectUri: urls.oauthCallback,
        errorRedirectUrl: urls.error,
        afterCallbackRedirectUrl: location.href,
        ...(scopes.length === 0 ? {} : { scopes }),
      });
      location.assign(url);
    },

    async handleOAuthCallback(options: { navigate?: boolean } = {}): Promise<OAuthResult> {
      const callbackUrl = location.href;
      // The code and state leave the address bar (and the history) before anything else happens.
      history.replaceState(history.state, '', stripOAuthCallbackParams(callbackUrl));
      const result = await (
        await api()
      )
        .completeOAuth({ callbackUrl })
        .catch((error: unknown) => showOnErrorPage(error, callbackUrl, options.navigate !== false));
      if (result.status === 'signed-in' && options.navigate !== false) {
        // The target the app stored when the flow started wins; whatever it is, only a same-origin
        // (or allowed) URL is followed, else the app's own page.
        const fallback = result.isNewUser ? urls.afterSignUp : urls.afterSignIn;
        location.replace(
          safeRedirectTarget(result.afterCallbackRedirectUrl, rules(), fallback, (refused) =>
            console.warn(refused.message),
          ),
        );
      }
      return result;
    },
  };
}
