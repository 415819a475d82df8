/**
 * The part of the app's options the broker itself receives, whatever hosts it. Part of the tab's
 * lazy connection: the options and the normalized base URL come in the `BrokerTarget`.
 */
import type { BrokerTarget } from './brokerChannel.js';

/**
 * Options only the broker reads, checked here rather than in the main chunk's checks (whose every byte loads before
 * the first frame): a bad one fails the connection with an InvalidArgumentError naming it, before any host starts.
 */
export function checkBrokerOptions({ options, errors }: Pick<BrokerTarget, 'options' | 'errors'>): void {
  if (options.appRequests?.attachInServiceWorker === true && options.mode !== 'service-worker')
    throw errors.deserializeError({
      kind: 'invalid-argument',
      code: 'INVALID_ARGUMENT',
      argument: 'options.appRequests.attachInServiceWorker',
      message:
        "options.appRequests.attachInServiceWorker needs mode: 'service-worker' (only a service worker sees the page's requests) and tokenStore: 'memory'.",
    });
  const millis = options.connectivityCheckMillis;
  if (millis === undefined || millis === 0 || (Number.isInteger(millis) && millis >= 1000 && millis <= 3_600_000))
    return;
  throw errors.deserializeError({
    kind: 'invalid-argument',
    code: 'INVALID_ARGUMENT',
    argument: 'options.connectivityCheckMillis',
    message: `options.connectivityCheckMillis must be 0 (never) or a whole number of milliseconds from 1000 to 3600000, got ${JSON.stringify(millis)}.`,
  });
}

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
    ...(options.connectivityCheckMillis === undefined
      ? {}
      : { connectivityCheckMillis: options.connectivityCheckMillis }),
    ...(options.appRequests === undefined ? {} : { appRequests: options.appRequests }),
    ...(options.offlineWrites === undefined ? {} : { offlineWrites: options.offlineWrites }),
  };
}
