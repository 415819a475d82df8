import { InvalidArgumentError } from '../errors/errors.js';
import { requireBoolean, requireObject, requirePositiveInteger, requireSegment, requireUrl, seg } from '../args.js';
import type { SuccessResponse } from '../resources/common.js';
import type {
  CustomerBilling,
  CustomerInvoice,
  CustomerPage,
  CustomerProduct,
  CustomerType,
  CustomerItem,
  ItemQuantityChange,
  CustomerPageQuery,
  ProductGrant,
  PurchaseCodeDetails,
  PurchaseUrlRequest,
  SubscriptionSwitch,
  TestModePurchase,
} from '../resources/payments.js';
import type { ServerAccess } from '../resources/views.js';
import type { Transport } from '../transport.js';

const CUSTOMER_TYPES: readonly CustomerType[] = ['user', 'team', 'custom'];

/** `value` if it is a customer type (`user`, `team` or `custom`); INVALID_ARGUMENT naming `argument` otherwise. */
export function requireCustomerType(value: unknown, argument = 'customerType'): CustomerType {
  if (!CUSTOMER_TYPES.includes(value as CustomerType))
    throw new InvalidArgumentError(
      argument,
      `${argument} must be "user", "team" or "custom", got ${JSON.stringify(value)}.`,
    );
  return value as CustomerType;
}

/** `/{customer_type}/{customer_id}`, checked. */
function customerPath(customerType: CustomerType, customerId: string): string {
  return `/${requireCustomerType(customerType)}/${seg(requireSegment(customerId, 'customerId'))}`;
}

function pageQuery(query: CustomerPageQuery | undefined): Record<string, string | undefined> {
  const q = query === undefined ? {} : (requireObject(query, 'query') as CustomerPageQuery);
  return {
    cursor: q.cursor === undefined ? undefined : requireSegment(q.cursor, 'query.cursor'),
    limit: q.limit === undefined ? undefined : String(requirePositiveInteger(q.limit, 'query.limit')),
  };
}

/** A customer's quantity of an item. Clients: their own user, or a team where they hold `team_admin`. */
export function getItem(
  t: Transport,
  customerType: CustomerType,
  customerId: string,
  itemId: string,
): Promise<CustomerItem> {
  return t.request({
    method: 'GET',
    path: `/payments/items${customerPath(customerType, customerId)}/${seg(requireSegment(itemId, 'itemId'))}`,
  });
}

/**
 * Adds `delta` (negative to take away) to a customer's quantity of an item. Without `allowNegative`, a change that would
 * leave less than zero is refused (`ITEM_QUANTITY_INSUFFICIENT_AMOUNT`), so that taking a credit is race-free.
 */
export async function updateItemQuantity(
  t: Transport<ServerAccess>,
  customerType: CustomerType,
  customerId: string,
  itemId: string,
  change: ItemQuantityChange,
  allowNegative = false,
): Promise<void> {
  const c = requireObject(change, 'change');
  if (typeof c.delta !== 'number' || !Number.isInteger(c.delta))
    throw new InvalidArgumentError('change.delta', 'change.delta must be a whole number.');
  await t.request<Record<string, never>>({
    method: 'POST',
    path: `/payments/items${customerPath(customerType, customerId)}/${seg(requireSegment(itemId, 'itemId'))}/update-quantity`,
    query: { allow_negative: String(requireBoolean(allowNegative, 'allowNegative')) },
    body: c,
  });
}

/** One page of the products a customer owns (server-only products left out for clients), by product id. */
export function listCustomerProducts(
  t: Transport,
  customerType: CustomerType,
  customerId: string,
  query?: CustomerPageQuery,
): Promise<CustomerPage<CustomerProduct>> {
  return t.request({
    method: 'GET',
    path: `/payments/products${customerPath(customerType, customerId)}`,
    query: pageQuery(query),
  });
}

/** Grants a customer a product without a purchase (server only); a subscription product answers its id. */
export function grantProduct(
  t: Transport<ServerAccess>,
  customerType: CustomerType,
  customerId: string,
  grant: ProductGrant,
): Promise<SuccessResponse & { subscription_id?: string }> {
  return t.request({
    method: 'POST',
    path: `/payments/products${customerPath(customerType, customerId)}`,
    body: requireObject(grant, 'grant'),
  });
}

/**
 * Cancels a customer's subscription to a product: it stays owned until the end of the period paid for. A product bought
 * once cannot be cancelled (a plain 400).
 */
export async function cancelSubscription(
  t: Transport,
  customerType: CustomerType,
  customerId: string,
  productId: string,
  subscriptionId?: string,
): Promise<void> {
  await t.request<SuccessResponse>({
    method: 'DELETE',
    path: `/payments/products${customerPath(customerType, customerId)}/${seg(requireSegment(productId, 'productId'))}`,
    query: {
      subscription_id: subscriptionId === undefined ? undefined : requireSegment(subscriptionId, 'subscriptionId'),
    },
  });
}

/** Moves a subscription to another product of its product line (needs a payment method on file with Stripe). */
export async function switchSubscription(
  t: Transport,
  customerType: 'user' | 'team',
  customerId: string,
  change: SubscriptionSwitch,
): Promise<void> {
  await t.request<SuccessResponse>({
    method: 'POST',
    path: `/payments/products${customerPath(customerType, customerId)}/switch`,
    body: requireObject(change, 'change'),
  });
}

/** A checkout URL for a product (the service's purchase page; `return_url` must be a trusted domain). */
export async function createPurchaseUrl(t: Transport, request: PurchaseUrlRequest): Promise<string> {
  const r = requireObject(request, 'request') as unknown as PurchaseUrlRequest;
  requireCustomerType(r.customer_type, 'request.customer_type');
  if (r.return_url !== undefined) requireUrl(r.return_url, 'request.return_url');
  return (
    await t.request<{ url: string }>({ method: 'POST', path: '/payments/purchases/create-purchase-url', body: r })
  ).url;
}

/** Whether a user or team has a Stripe customer, and its default card. */
export function getCustomerBilling(
  t: Transport,
  customerType: 'user' | 'team',
  customerId: string,
): Promise<CustomerBilling> {
  return t.request({ method: 'GET', path: `/payments/billing${customerPath(customerType, customerId)}` });
}

/** One page of a user's or team's subscription invoices, newest first. */
export function listCustomerInvoices(
  t: Transport,
  customerType: 'user' | 'team',
  customerId: string,
  query?: CustomerPageQuery,
): Promise<CustomerPage<CustomerInvoice>> {
  return t.request({
    method: 'GET',
    path: `/payments/invoices${customerPath(customerType, customerId)}`,
    query: pageQuery(query),
  });
}

/** What a purchase URL's code is for (the full code is the last path segment of the URL), as a checkout page shows it. */
export function validatePurchaseCode(t: Transport, fullCode: string, returnUrl?: string): Promise<PurchaseCodeDetails> {
  return t.request({
    method: 'POST',
    path: '/payments/purchases/validate-code',
    body: {
      full_code: requireSegment(fullCode, 'fullCode'),
      ...(returnUrl === undefined ? {} : { return_url: requireUrl(returnUrl, 'returnUrl') }),
    },
    user: 'none',
  });
}

/**
 * Completes a purchase URL's purchase without payment, as the service's checkout page does when the project's payments
 * are in test mode (a 403 otherwise). The code is used up.
 */
export async function completeTestModePurchase(t: Transport, purchase: TestModePurchase): Promise<void> {
  const p = requireObject(purchase, 'purchase');
  await t.request<SuccessResponse>({
    method: 'POST',
    path: '/internal/payments/test-mode-purchase-session',
    body: {
      full_code: requireSegment(p.full_code, 'purchase.full_code'),
      price_id: requireSegment(p.price_id, 'purchase.price_id'),
      ...(p.quantity === undefined ? {} : { quantity: requirePositiveInteger(p.quantity, 'purchase.quantity') }),
    },
    user: 'none',
  });
}
