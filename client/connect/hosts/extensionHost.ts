/**
 * The extension host is never chosen by a page's client: an extension's contexts reach the broker
 * in its background through `authbroker/extension`'s own connection (client/extension/).
 */
import type { BrokerChannel, BrokerTarget } from '../brokerChannel.js';

/** An extension's background is reached through `authbroker/extension`'s own connection, never chosen here. */
export async function openExtension(target: BrokerTarget): Promise<BrokerChannel> {
  throw new target.errors.ClientError(
    'BROKER_UNAVAILABLE',
    "The extension's broker is reached with createExtensionClient from 'authbroker/extension'.",
  );
}
