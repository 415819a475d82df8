import { createKnownError } from '../../protocol/errors/create.js';
import type { CustomerType, InlineProduct } from '../../protocol/resources/payments.js';
import type { AuthContext } from '../auth/authenticate.js';
import { StatusError } from '../errors.js';
import { paymentErrors } from '../paymentErrors.js';
import { obj, yup } from '../http/validate.js';
import type { ProjectRecord } from '../state/model.js';
import type { CustomerKey } from '../state/payments.js';
import { paymentsConfig, productFromInline } from '../state/paymentsConfig.js';
import type { ProductConfig } from '../state/paymentsModel.js';
import { findUser } from '../state/users.js';
import { requireTeam, requireTeamPermission } from './teams.js';

/** The checks every payments route shares, in the order the service runs them. */

const ALL_TYPES: readonly CustomerType[] = ['user', 'team', 'custom'];

/** `{customer_type}/{customer_id}` of a path, `customer_type` among `types`. */
export const customerParams = <M extends yup.ObjectShape = Record<never, never>>(
  types: readonly CustomerType[] = ALL_TYPES,
  more: M = {} as M,
) =>
  obj({
    customer_type: yup
      .string()
      .oneOf([...types])
      .defined(),
    customer_id: yup.string().defined(),
    ...more,
  }).defined();

export const customerOf = (params: { customer_type: string; customer_id: string }): CustomerKey => ({
  customer_type: params.customer_type as CustomerType,
  customer_id: params.customer_id,
});

/**
 * A client may reach its own user, and a team where it holds `team_admin`; never a custom customer (a plain 403 with
 * the route's sentence).
 */
export function requireClientAccess(auth: AuthContext, customer: CustomerKey, forbidden: string): void {
  if (auth.type !== 'client') return;
  if (auth.user === null) throw createKnownError('USER_AUTHENTICATION_REQUIRED');
  if (customer.customer_type === 'custom') throw new StatusError(403, forbidden);
  if (customer.customer_type === 'user') {
    if (customer.customer_id !== auth.user.id) throw new StatusError(403, forbidden);
    return;
  }
  requireTeamPermission(auth.project, customer.customer_id, auth.user.id, 'team_admin');
}

/** A user or team customer must exist (a custom one always does). */
export function requireCustomerExists(p: ProjectRecord, customer: CustomerKey): void {
  if (customer.customer_type === 'user' && !findUser(p, customer.customer_id)) throw createKnownError('USER_NOT_FOUND');
  if (customer.customer_type === 'team') requireTeam(p, customer.customer_id);
}

/** A product of the configuration by id, or (servers only) one described inline: exactly one of them. */
export function resolveProduct(
  p: ProjectRecord,
  auth: AuthContext,
  productId: string | undefined,
  inline: unknown,
): ProductConfig {
  if (productId !== undefined && inline !== undefined)
    throw new StatusError(400, 'Cannot specify both product_id and product_inline!');
  if (inline !== undefined && auth.type === 'client')
    throw new StatusError(
      400,
      'Cannot specify product_inline when calling from client! Please call with a server API key, or use the product_id parameter.',
    );
  if (productId === undefined && inline === undefined)
    throw new StatusError(400, 'Must specify either product_id or product_inline!');
  if (productId === undefined) return productFromInline(requireInlineProduct(inline));
  const config = paymentsConfig(p);
  const product = Object.hasOwn(config.products, productId) ? config.products[productId] : undefined;
  if (product === undefined)
    throw paymentErrors.productDoesNotExist(productId, Object.hasOwn(config.items, productId) ? 'item_exists' : null);
  if (product.serverOnly && auth.type === 'client') throw paymentErrors.productDoesNotExist(productId, 'server_only');
  return product;
}

const inlineProductSchema = obj({
  display_name: yup.string().defined(),
  customer_type: yup
    .string()
    .oneOf([...ALL_TYPES])
    .defined(),
  free_trial: yup.array(),
  server_only: yup.boolean(),
  stackable: yup.boolean(),
  prices: yup.object().defined(),
  included_items: yup.object().defined(),
  client_metadata: yup.mixed(),
  client_read_only_metadata: yup.mixed(),
  server_metadata: yup.mixed(),
}).defined();

function requireInlineProduct(value: unknown): InlineProduct {
  try {
    return inlineProductSchema.validateSync(value, { abortEarly: false }) as unknown as InlineProduct;
  } catch (error) {
    const lines = error instanceof yup.ValidationError ? error.errors.map((e) => `body.product_inline: ${e}`) : [];
    throw createKnownError('SCHEMA_ERROR', { message: lines.join('\n') || 'body.product_inline is invalid' });
  }
}

/** A page of `entries` (sorted), from `cursor` (an entry's key), `limit` 1–100 (default 10). */
export function pageOf<T>(
  entries: Array<{ cursor: string; item: T }>,
  query: { cursor?: string | undefined; limit?: string | undefined },
): { items: T[]; is_paginated: true; pagination: { next_cursor: string | null } } {
  const limit = query.limit === undefined ? 10 : Number(query.limit);
  // The service fails these with a 500 (a validation outside its schema); the emulator says why.
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new StatusError(400, 'limit must be a whole number from 1 to 100');
  let start = 0;
  if (query.cursor !== undefined) {
    start = entries.findIndex((entry) => entry.cursor === query.cursor);
    if (start === -1) throw new StatusError(400, 'Invalid cursor');
  }
  const page = entries.slice(start, start + limit);
  const next = entries[start + limit];
  return { items: page.map((e) => e.item), is_paginated: true, pagination: { next_cursor: next?.cursor ?? null } };
}

/** Purchases, and switching plans, stop while the project blocks new purchases. */
export function requirePurchasesOpen(p: ProjectRecord): void {
  if (paymentsConfig(p).blockNewPurchases) throw paymentErrors.newPurchasesBlocked();
}
