/** The extension's own pages (popup, side panel, options): a client of the broker in the background. */
import { inExtensionBackground } from '../../contract/extensionBackground.js';
import { EXTENSION_PAGE_PORT, inContentScript } from '../../contract/webExtension.js';
import { ClientError } from '../../protocol/errors/errors.js';
import type { OAuthResult } from '../../contract/api.js';
import { createClientOn } from '../createClientOn.js';
import { oauthMethods } from '../oauth.js';
import { appFetch } from '../appRequests/appFetch.js';
import { withWebAuthFlow, type ExtensionClient } from './extensionClient.js';
import {
  connectOptionsOf,
  NO_PASSKEYS_IN_EXTENSIONS,
  requireExtension,
  type ExtensionOptions,
} from './extensionOptions.js';
import { portConnection } from './portConnection.js';

/**
 * The client of an extension page (popup, side panel, options page, or any page of the extension
 * opened in a tab): the same API as every other host's (the React hooks take it), connected to the
 * broker in the extension's background over a `runtime.connect` port. Nothing is registered; the
 * port reconnects by itself when the background stops and starts again. The options name the same
 * service and project as the background's (`startExtensionBroker`).
 */
export function createExtensionClient(options: ExtensionOptions): ExtensionClient {
  const extension = requireExtension('createExtensionClient');
  if (inContentScript())
    throw new ClientError(
      'BROKER_UNAVAILABLE',
      "createExtensionClient runs in the extension's own pages; a content script uses createContentScriptClient from 'authbroker/extension/content'.",
    );
  // A port from the background to itself is never answered: the background has its broker's own client.
  if (inExtensionBackground(extension))
    throw new ClientError(
      'BROKER_UNAVAILABLE',
      "createExtensionClient runs in the extension's own pages; in the background, use the client startExtensionBroker returns.",
    );
  const connection = portConnection(extension, EXTENSION_PAGE_PORT);
  // Static, like the background's: no import() anywhere in authbroker/extension, so a page bundled with the background
  // shares no chunk that has one.
  const parts = {
    connection: async () => connection,
    oauth: async () => ({ oauthMethods }),
    appRequests: async () => ({ appFetch }),
    ...NO_PASSKEYS_IN_EXTENSIONS,
  };
  const client = createClientOn(connectOptionsOf(options, {}), { origin: location.origin }, parts);
  return withWebAuthFlow(client, async (providerId, flowOptions = {}) => {
    await client.connect();
    const api = connection.current() as unknown as { launchOAuth(input: unknown): Promise<OAuthResult> } | null;
    if (api === null)
      throw new ClientError(
        'BROKER_UNAVAILABLE',
        'The extension’s background stopped before the sign-in started. Try again.',
      );
    return api.launchOAuth({ ...flowOptions, providerId });
  });
}
