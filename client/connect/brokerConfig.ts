/**
 * The part of the app's options the broker itself receives, whatever hosts it. Part of the tab's
 * lazy connection: the options and the normalized base URL come in the `BrokerTarget`.
 */
import type { BrokerTarget } from './brokerChannel.js';

/** The part of the options the broker itself receives (the base URL as the main chunk normalized it). */
export function brokerConfigOf({ options, baseUrl }: Pick<BrokerTarget, 'options' | 'baseUrl'>) {
  return {
    baseUrl,
    projectId: options.projectId,
    publishableClientKey: options.publishableClientKey,
    ...(options.internalPublishableClientKey === undefined
      ? {}
      : { internalPublishableClientKey: options.internalPublishableClientKey }),
    ...(options.tokenMarginMillis === undefined ? {} : { tokenMarginMillis: options.tokenMarginMillis }),
    ...(options.extraRequestHeaders === undefined ? {} : { extraRequestHeaders: options.extraRequestHeaders }),
    ...(options.refetchOnReturn === undefined ? {} : { refetchOnReturn: options.refetchOnReturn }),
    ...(options.tokenStore === undefined ? {} : { tokenStore: options.tokenStore }),
  };
}
