/**
 * `authbroker`: the Stack Auth REST API v1 wire protocol, runtime-agnostic (fetch, URL and
 * crypto.subtle only). Everything else in the package is built on it.
 *
 * @module authbroker
 */
export * from './resources/index.js';
export * from './errors/catalogue.js';
export { codeBelongsTo, knownErrorLineage, lineageOf, parentOf, statusOf } from './errors/lineage.js';
export * from './errors/families.js';
export * from './errors/errors.js';
export { BODY_EXCERPT_LENGTH, redactBody } from './errors/redact.js';
export * from './errors/knownError.js';
export * from './errors/create.js';
export * from './errors/serialize.js';
export * from './codec.js';
export * from './retry.js';
export * from './diagnostics.js';
export * from './transport.js';
export * from './tokens.js';
export * from './tokenGrant.js';
export * from './authorizationCode.js';
export * from './tokenSource.js';
export * from './validation.js';
export * from './version.js';
/**
 * One function per API v1 endpoint, speaking the wire (snake_case objects), each taking a transport first: for
 * calls the apps do not bind.
 */
export * as endpoints from './endpoints/index.js';
export { isUuid } from './args.js';
export * from './models.js';
export type {
  BillableCustomer,
  BillingModel,
  Customer,
  CustomerPageModel,
  CustomerProductModel,
  CustomerRef,
  IncludedItemModel,
  InvoiceModel,
  ItemModel,
  PriceModel,
} from './paymentModels.js';
export * from './partialUser.js';
export * from './authHeaders.js';
export * from './workerPolicy.js';
