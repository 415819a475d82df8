import type { CustomerType, DayInterval } from '../../protocol/resources/payments.js';
import { StatusError } from '../errors.js';
import { paymentErrors } from '../paymentErrors.js';
import type { ProjectRecord } from './model.js';
import { jsonbOrder } from './paymentsConfig.js';
import type {
  IncludedItemConfig,
  PaymentsRecord,
  PriceConfig,
  ProductConfig,
  PurchaseRecord,
} from './paymentsModel.js';

/**
 * A project's payments ledger, as the service keeps it: what each customer owns (one-time purchases, and
 * subscriptions until they end), the quantity of each item (what owned products include, plus servers' changes), and
 * granting a product, which is what a test-mode checkout and a server's grant both do. Quantities are computed when
 * asked, at the emulator's time, so that moving the clock renews and expires grants as the service's would.
 */
export interface CustomerKey {
  customer_type: CustomerType;
  customer_id: string;
}

export function paymentsOf(p: ProjectRecord): PaymentsRecord {
  return (p.payments ??= {
    stripe_account_id: null,
    stripe_customers: [],
    purchases: [],
    item_changes: [],
    purchase_codes: [],
  });
}

/** Owned products are keyed by product id; inline ones (no id) share this key, as the service's do. */
export const INLINE_PRODUCT_KEY = '__null__';

export interface OwnedProduct {
  quantity: number;
  product: ProductConfig;
}

const DAY = 86_400_000;
const UNIT_MILLIS = { day: DAY, week: 7 * DAY, month: 30 * DAY, year: 365 * DAY } as const;
/** A repeat interval in milliseconds, with months of 30 days and years of 365, as the service counts them. */
const intervalMillis = ([count, unit]: DayInterval) => count * UNIT_MILLIS[unit];

/** `now` plus an interval in calendar terms (a month later is the same day of the next month), for period ends. */
export function addInterval(now: number, [count, unit]: DayInterval): number {
  const date = new Date(now);
  if (unit === 'day') date.setUTCDate(date.getUTCDate() + count);
  if (unit === 'week') date.setUTCDate(date.getUTCDate() + 7 * count);
  if (unit === 'month') date.setUTCMonth(date.getUTCMonth() + count);
  if (unit === 'year') date.setUTCFullYear(date.getUTCFullYear() + count);
  return date.getTime();
}

const isCustomer = (c: CustomerKey) => (r: CustomerKey) =>
  r.customer_type === c.customer_type && r.customer_id === c.customer_id;

/** When a purchase stops being owned: never for one bought once; a subscription's end, if it has one. */
function endOf(purchase: PurchaseRecord): number | null {
  return purchase.subscription?.ended_at_millis ?? null;
}

function isOwned(purchase: PurchaseRecord, now: number): boolean {
  const end = endOf(purchase);
  return end === null || end > now;
}

export function isActiveSubscription(purchase: PurchaseRecord, now: number): boolean {
  return purchase.subscription?.status === 'active' && isOwned(purchase, now);
}

export function purchasesOf(p: ProjectRecord, customer: CustomerKey): PurchaseRecord[] {
  return paymentsOf(p).purchases.filter(isCustomer(customer));
}

/** What the customer owns now, by product id (quantities of several purchases of one product added up). */
export function ownedProducts(p: ProjectRecord, customer: CustomerKey, now: number): Map<string, OwnedProduct> {
  const owned = new Map<string, OwnedProduct>();
  for (const purchase of purchasesOf(p, customer)) {
    if (!isOwned(purchase, now)) continue;
    const key = purchase.product_id ?? INLINE_PRODUCT_KEY;
    const before = owned.get(key);
    owned.set(key, { quantity: (before?.quantity ?? 0) + purchase.quantity, product: purchase.product });
  }
  return owned;
}

/**
 * What one purchase gives of an included item now. Each grant is the item's quantity per unit bought; a repeating item
 * is granted again every interval while owned. Grants that expire "when repeated" count only for their own interval;
 * when a subscription ends, every grant that expires (when repeated, or with the purchase) goes with it, and only those
 * that never expire stay.
 */
function includedQuantity(purchase: PurchaseRecord, included: IncludedItemConfig, now: number): number {
  const perGrant = included.quantity * purchase.quantity;
  const end = endOf(purchase);
  const until = end === null ? now : Math.min(now, end);
  const grants =
    included.repeat === 'never'
      ? 1
      : 1 + Math.floor(Math.max(0, until - purchase.created_at_millis) / intervalMillis(included.repeat));
  if (included.expires === 'never') return perGrant * grants;
  if (end !== null && end <= now) return 0;
  return included.expires === 'when-repeated' ? perGrant : perGrant * grants;
}

/** A customer's quantity of an item now: what owned products include, plus servers' changes not yet expired. */
export function itemQuantity(p: ProjectRecord, customer: CustomerKey, itemId: string, now: number): number {
  let total = 0;
  for (const change of paymentsOf(p).item_changes.filter(isCustomer(customer)))
    if (change.item_id === itemId && (change.expires_at_millis === null || change.expires_at_millis > now))
      total += change.delta;
  for (const purchase of purchasesOf(p, customer)) {
    const included = Object.hasOwn(purchase.product.includedItems, itemId)
      ? purchase.product.includedItems[itemId]
      : undefined;
    if (included !== undefined) total += includedQuantity(purchase, included, now);
  }
  return total;
}

export interface Grant {
  customer: CustomerKey;
  product: ProductConfig;
  productId: string | null;
  /** The price bought; the product's first when not named. */
  priceId: string | null;
  quantity: number;
  source: PurchaseRecord['creation_source'];
}

function selectedPrice(product: ProductConfig, priceId: string | null): [string, PriceConfig] | null {
  if (product.prices === 'include-by-default') return null;
  if (priceId === null) {
    const first = jsonbOrder(Object.keys(product.prices))[0];
    return first === undefined ? null : [first, product.prices[first]!];
  }
  if (!Object.hasOwn(product.prices, priceId))
    throw new StatusError(400, 'Price not found on product associated with this purchase code');
  return [priceId, product.prices[priceId]!];
}

/**
 * The checks of a purchase before it is made, as the service runs them (the price, stacking, owning it already, an
 * add-on's base, the product line), answering the active subscriptions of the product line that it replaces.
 */
export function checkPurchase(p: ProjectRecord, grant: Grant, now: number): PurchaseRecord[] {
  const { product, productId, customer, quantity } = grant;
  selectedPrice(product, grant.priceId);
  if (quantity !== 1 && product.stackable !== true)
    throw new StatusError(400, 'This product is not stackable; quantity must be 1');
  const owned = ownedProducts(p, customer, now);
  const owns = (id: string) => (owned.get(id)?.quantity ?? 0) > 0;
  if (productId !== null && product.stackable !== true && owns(productId))
    throw paymentErrors.productAlreadyGranted(productId, customer.customer_id);
  const baseIds = product.isAddOnTo === false ? [] : Object.keys(product.isAddOnTo);
  if (product.isAddOnTo !== false && !baseIds.some(owns))
    throw new StatusError(400, 'This product is an add-on to a product that the customer does not have');
  const line = product.productLineId;
  if (line === undefined) return [];
  const inLine = [...owned].filter(
    ([id, o]) => o.product.productLineId === line && o.quantity > 0 && !baseIds.includes(id),
  );
  if (inLine.length === 0) return [];
  const replaced = purchasesOf(p, customer).filter(
    (s) => isActiveSubscription(s, now) && s.product.productLineId === line && !baseIds.includes(s.product_id ?? ''),
  );
  if (replaced.length === 0)
    throw new StatusError(400, 'Customer already has a one-time purchase in this product line');
  return replaced;
}

/** Grants a product (a test-mode checkout, a server's grant); answers the subscription made, if one was. */
export function grantProduct(p: ProjectRecord, grant: Grant, now: number): PurchaseRecord | null {
  const replaced = checkPurchase(p, grant, now)[0];
  if (replaced?.subscription !== undefined)
    Object.assign(replaced.subscription, { status: 'canceled', cancel_at_period_end: true, ended_at_millis: now });
  const price = selectedPrice(grant.product, grant.priceId);
  if (price === null) return null;
  const [priceId, { interval }] = price;
  const purchase: PurchaseRecord = {
    id: crypto.randomUUID(),
    kind: interval === undefined ? 'one_time' : 'subscription',
    ...grant.customer,
    product_id: grant.productId,
    price_id: priceId,
    product: structuredClone(grant.product),
    quantity: grant.quantity,
    created_at_millis: now,
    creation_source: grant.source,
    ...(interval === undefined
      ? {}
      : {
          subscription: {
            status: 'active' as const,
            current_period_end_millis: addInterval(now, interval),
            cancel_at_period_end: false,
            ended_at_millis: null,
          },
        }),
  };
  paymentsOf(p).purchases.push(purchase);
  return purchase;
}

/** Cancels subscriptions: each stays owned until the end of its period, and renews no more. */
export function cancelSubscriptions(subscriptions: PurchaseRecord[]): void {
  for (const s of subscriptions)
    if (s.subscription !== undefined)
      Object.assign(s.subscription, {
        status: 'canceled',
        cancel_at_period_end: true,
        ended_at_millis: s.subscription.current_period_end_millis,
      });
}
