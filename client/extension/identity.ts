/**
 * Social sign-in in an extension: the browser's own web-auth window (`identity.launchWebAuthFlow`,
 * Chromium and Firefox), which follows the provider's pages and hands back the URL it was sent to,
 * `identity.getRedirectURL()`: `https://<id>.chromiumapp.org/…` in Chromium,
 * `https://<hash>.extensions.allizom.org/…` in Firefox. The project trusts that https URL like any
 * domain of its own. It runs in the background, whose life does not end when a popup loses focus
 * to the sign-in window.
 */
import type { OAuthResult } from '../../contract/api.js';
import type { ExtensionApi, ExtensionOAuthInput } from '../../contract/webExtension.js';
import { ClientError, InvalidArgumentError, messageOf } from '../../protocol/errors/errors.js';
import type { BrokerClient } from '../brokerClient.js';

/** The path under the identity redirect URL the flows come back to. */
export const OAUTH_REDIRECT_PATH = 'authbroker-oauth';

/** The redirect URL this extension's flows use: add it (scheme and host) to the project's trusted domains. */
export function extensionRedirectUrl(extension: ExtensionApi): string {
  if (extension.identity === undefined)
    throw new ClientError(
      'BROKER_UNAVAILABLE',
      'Social sign-in in an extension needs the "identity" permission in its manifest.',
    );
  return extension.identity.getRedirectURL(OAUTH_REDIRECT_PATH);
}

/**
 * What an extension page may ask the background to start, checked (the broker checks the rest when the flow starts).
 */
export function readOAuthInput(value: unknown): ExtensionOAuthInput {
  const input = value as Partial<ExtensionOAuthInput> | null;
  if (typeof input !== 'object' || input === null || typeof input.providerId !== 'string')
    throw new InvalidArgumentError('providerId', 'Name the provider, e.g. "github".');
  if (input.type !== undefined && input.type !== 'authenticate' && input.type !== 'link')
    throw new InvalidArgumentError('type', "type must be 'authenticate' or 'link'.");
  if (
    input.scopes !== undefined &&
    !(Array.isArray(input.scopes) && input.scopes.every((scope) => typeof scope === 'string'))
  )
    throw new InvalidArgumentError('scopes', 'scopes must be a list of strings.');
  return {
    providerId: input.providerId,
    ...(input.type === undefined ? {} : { type: input.type }),
    ...(input.scopes === undefined ? {} : { scopes: [...input.scopes] }),
  };
}

/** Signs in (or links an account) through the browser's web-auth window; the flow's secrets never leave the broker. */
export async function signInWithWebAuthFlow(
  client: Pick<BrokerClient, 'startOAuthFlow' | 'completeOAuthFlow'>,
  extension: ExtensionApi,
  input: ExtensionOAuthInput,
): Promise<OAuthResult> {
  const redirectUri = extensionRedirectUrl(extension);
  const { url } = await client.startOAuthFlow(input.providerId, {
    redirectUri,
    ...(input.type === undefined ? {} : { type: input.type }),
    ...(input.scopes === undefined ? {} : { scopes: input.scopes }),
  });
  let returned: string | undefined;
  try {
    returned = await extension.identity!.launchWebAuthFlow({ url, interactive: true });
  } catch (error) {
    throw new ClientError(
      'OAUTH_CANCELLED',
      `The sign-in window closed before signing in finished (${messageOf(error)}).`,
    );
  }
  if (typeof returned !== 'string' || returned === '')
    throw new ClientError('OAUTH_CANCELLED', 'The sign-in window closed before signing in finished.');
  return client.completeOAuthFlow(returned);
}
