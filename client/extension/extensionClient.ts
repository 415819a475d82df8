import type { OAuthResult } from '../../contract/api.js';
import { ClientError } from '../../protocol/errors/errors.js';
import type { BrokerClient } from '../brokerClient.js';

/**
 * An extension context's client: the same as every other host's, with social sign-in through the browser's web-auth
 * window.
 */
export interface ExtensionClient extends BrokerClient {
  /**
   * Signs in (or, with `type: 'link'`, links an account) through the browser's web-auth window
   * (`identity.launchWebAuthFlow`), run by the background, so a popup that closes when the window
   * takes focus loses nothing. Resolves with how it ended: `mfa-required` carries the attempt code
   * for `signInWithMfa`. Needs the "identity" permission, and the project trusting the extension's
   * redirect URL (`oauthRedirectUrl()`).
   */
  signInWithWebAuthFlow(
    providerId: string,
    options?: { type?: 'authenticate' | 'link'; scopes?: string[] },
  ): Promise<OAuthResult>;
}

/**
 * `signInWithOAuth`, `linkOAuthAccount` and `handleOAuthCallback` as an extension has them: no page leaves for the
 * provider.
 */
export function withWebAuthFlow(client: BrokerClient, flow: ExtensionClient['signInWithWebAuthFlow']): ExtensionClient {
  const signedIn = (result: OAuthResult) => {
    if (result.status === 'mfa-required') {
      throw new ClientError(
        'NOT_SIGNED_IN',
        'This account needs its second factor: use signInWithWebAuthFlow, whose result carries the attempt code for signInWithMfa.',
      );
    }
  };
  return Object.assign(client, {
    signInWithWebAuthFlow: flow,
    signInWithOAuth: async (providerId: string, options?: { scopes?: string[] }) =>
      signedIn(await flow(providerId, options?.scopes === undefined ? {} : { scopes: options.scopes })),
    linkOAuthAccount: async (providerId: string, scopes?: string[]) =>
      signedIn(await flow(providerId, { type: 'link', ...(scopes === undefined ? {} : { scopes }) })),
    handleOAuthCallback: () =>
      Promise.reject(
        new ClientError(
          'OAUTH_CALLBACK_INVALID',
          'In an extension the sign-in window comes back to the background (signInWithOAuth): there is no callback page to handle.',
        ),
      ),
  });
}
