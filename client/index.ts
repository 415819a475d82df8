/**
 * `authbroker/client`: what a tab imports. Importing it touches nothing of the page, so it is safe
 * during server rendering.
 *
 * @module authbroker/client
 */
export { connectBroker, createBrokerClient } from './pageClient.js';
export type { BrokerActions, BrokerClient } from './brokerClient.js';
export type { ConnectOptions, BrokerModeChoice } from './connectOptions.js';
export type { TokenStore } from '../contract/brokerKey.js';
export { handlerPaths, handlerUrls, type HandlerPaths, type HandlerUrls } from './handlerUrls.js';
export { candidateModes, detectCapabilities, type Capabilities } from './connect/mode.js';
export { passkeysAvailable } from './passkeys/passkeySupport.js';
export type { OAuthSignInOptions } from './oauth.js';
export type { AppFetchOptions } from './appRequests/appFetch.js';
export {
  checkRedirectTarget,
  readReturnTo,
  safeRedirectTarget,
  redirectTo,
  RETURN_TO_PARAM,
  type RedirectRules,
} from './redirects.js';
export type { HandlerPage, RedirectOptions } from './navigation/handlerRedirect.js';
export type { PasskeyOptions } from './passkeys/passkeys.js';
export { isKnownError, KnownError, type AnyKnownError } from '../protocol/errors/knownError.js';
export {
  AuthBrokerError,
  ClientError,
  HttpStatusError,
  InvalidArgumentError,
  NetworkError,
  ProtocolError,
} from '../protocol/errors/errors.js';
export { deserializeError } from '../protocol/errors/serialize.js';
export type * from '../contract/index.js';
export type * from '../protocol/models.js';
export type {
  BillableCustomer,
  BillingModel,
  Customer,
  CustomerPageModel,
  CustomerProductModel,
  IncludedItemModel,
  InvoiceModel,
  ItemModel,
  PriceModel,
} from '../protocol/paymentModels.js';
