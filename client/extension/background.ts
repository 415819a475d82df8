/**
 * The extension's background: the broker every context of the extension shares, and the
 * background's own client of it, in place.
 */
import type { Delivery } from '../../contract/api.js';
import { EXTENSION_PAGE_PORT, extensionOriginOf } from '../../contract/webExtension.js';
import { normalizeBaseUrl } from '../../protocol/credentials.js';
import { hostExtensionBroker, type ExtensionHost } from '../../worker/hosts/extension.js';
import type { BrokerTarget } from '../connect/brokerChannel.js';
import type { ConnectionModule } from '../brokerClient.js';
import { createClientOn } from '../createClientOn.js';
import type { Connection } from '../connect/connection.js';
import { receiving } from '../connect/deliveries.js';
import type { HandlerUrls } from '../handlerUrls.js';
import { keepSnapshots } from '../kept/keptCopyWriter.js';
import { oauthMethods } from '../oauth.js';
import { appFetch } from '../appRequests/appFetch.js';
import { withWebAuthFlow, type ExtensionClient } from './extensionClient.js';
import { readOAuthInput, signInWithWebAuthFlow } from './identity.js';
import {
  connectOptionsOf,
  NO_PASSKEYS_IN_EXTENSIONS,
  requireExtension,
  type ExtensionBrokerOptions,
} from './extensionOptions.js';
import { extensionBrokerConfig, extensionHello } from './portConnection.js';

/** The background's connection: the broker's API in place, no port. */
function inContext(host: ExtensionHost): ConnectionModule {
  return {
    async connect(
      _target: BrokerTarget,
      urls: HandlerUrls | null,
      deliver: (batch: Delivery) => void,
    ): Promise<Connection> {
      let markLost!: () => void;
      const lost = new Promise<void>((resolve) => (markLost = resolve));
      const api = await host.connectInContext(extensionHello(urls), { deliver }, () => markLost());
      return {
        mode: 'extension',
        api,
        lost,
        close(goodbye = false) {
          if (goodbye) void api.goodbye().catch(() => undefined);
        },
      };
    },
    keepSnapshots,
    receiving,
  };
}

/**
 * Starts the broker in the extension's background (Chromium's MV3 service worker, Firefox's MV3
 * background scripts) and returns the background's own client of it: the same API as every other
 * host's. Call it once, at the top level of the background script, synchronously (an MV3
 * background's listeners must be registered in the first run of its script): extension pages then
 * connect with `createExtensionClient`, content scripts (if `contentScripts` allows them) with
 * `createContentScriptClient` from `authbroker/extension/content`, and nothing is registered. The
 * broker reads the session back from storage at every start of the background.
 *
 * ```ts
 * // background.ts (the options: the same service and project as the extension's pages give)
 * import { startExtensionBroker } from 'authbroker/extension';
 * export const auth = startExtensionBroker({ baseUrl, projectId, publishableClientKey, contentScripts: true });
 * ```
 */
export function startExtensionBroker(options: ExtensionBrokerOptions): ExtensionClient {
  const extension = requireExtension('startExtensionBroker');
  const { contentScripts = false, ...shared } = options ?? ({} as ExtensionBrokerOptions);
  // The kept copy lives in pages' localStorage, which a background does not have.
  const connectOptions = connectOptionsOf(shared, { persistSnapshot: false });
  const origin = extensionOriginOf(extension.runtime.getURL(''));
  let client: ExtensionClient | null = null;
  const host = hostExtensionBroker({
    config: extensionBrokerConfig({ options: connectOptions, baseUrl: normalizeBaseUrl(connectOptions.baseUrl) }),
    tokenStore: shared.tokenStore ?? 'indexeddb',
    contentScripts: contentScripts === true ? {} : contentScripts,
    extension,
    pageMethods: {
      launchOAuth: (input: unknown) => {
        const { providerId, ...flowOptions } = readOAuthInput(input);
        return client!.signInWithWebAuthFlow(providerId, flowOptions);
      },
    },
  });
  // Every part from this script, none with import(): a service worker may not import(), so a
  // background built with code-splitting has no chunk to load at run time.
  const parts = {
    connection: async () => inContext(host),
    oauth: async () => ({ oauthMethods }),
    appRequests: async () => ({ appFetch }),
    ...NO_PASSKEYS_IN_EXTENSIONS,
  };
  // The web-auth window may stay open for minutes (a password, a second factor): the background stays up meanwhile.
  client = withWebAuthFlow(createClientOn(connectOptions, { origin }, parts), (providerId, flowOptions) =>
    host.keepAwake(() => signInWithWebAuthFlow(client!, extension, readOAuthInput({ ...flowOptions, providerId }))),
  );
  return client;
}

export { EXTENSION_PAGE_PORT };
