/**
 * Payments as apps see them (camelCase, times in milliseconds), made from the wire objects of
 * resources/payments.ts. Written out rather than through `camelize`: prices and included items are
 * keyed by the project's own ids (`credit_pack`, `api_calls`), which must reach the app as written.
 */
import { InvalidArgumentError } from './errors/errors.js';
import { requireObject, requireSegment } from './args.js';
import type { Json } from './resources/common.js';
import type {
  CustomerBilling,
  CustomerInvoice,
  CustomerPage,
  CustomerProduct,
  CustomerType,
  DayInterval,
  IncludedItem,
  InlineProduct,
  CustomerItem,
  ProductPrice,
} from './resources/payments.js';

/** Whose items and products: the SDK's three forms (`{ userId }`, `{ teamId }`, `{ customCustomerId }`). */
export type Customer = { userId: string } | { teamId: string } | { customCustomerId: string };

/** A customer with a Stripe customer of its own (billing, invoices, subscriptions a client manages): a user or a team. */
export type BillableCustomer = { userId: string } | { teamId: string };

/** A customer as the wire names it. */
export interface CustomerRef {
  customerType: CustomerType;
  customerId: string;
}

/** `{ userId }` → `{ customerType: 'user', customerId }`; anything else is an InvalidArgumentError. */
export function customerRef(customer: Customer, argument = 'customer'): CustomerRef {
  const c = requireObject(customer, argument);
  const forms = [
    ['userId', 'user'],
    ['teamId', 'team'],
    ['customCustomerId', 'custom'],
  ] as const;
  const given = forms.filter(([key]) => c[key] !== undefined);
  if (given.length !== 1)
    throw new InvalidArgumentError(
      argument,
      `${argument} must have exactly one of userId, teamId or customCustomerId.`,
    );
  const [key, customerType] = given[0]!;
  return { customerType, customerId: requireSegment(c[key], `${argument}.${key}`) };
}

/** A customer's quantity of an item. */
export interface ItemModel {
  id: string;
  displayName: string;
  /** May be negative. */
  quantity: number;
  /** `Math.max(0, quantity)`, what most screens show. */
  nonNegativeQuantity: number;
}

/** One price: amounts by currency code (`{ USD: '9.99' }`), and for a subscription its interval. */
export interface PriceModel {
  amounts: Record<string, string>;
  interval: DayInterval | null;
  freeTrial: DayInterval | null;
}

/** An item a product includes: how many, and how often it is granted again and when it lapses. */
export interface IncludedItemModel {
  quantity: number;
  repeat: DayInterval | 'never';
  expires: 'never' | 'when-purchase-expires' | 'when-repeated';
}

/** A product a customer owns. */
export interface CustomerProductModel {
  /** Its id in the project's configuration; null for one a server granted inline. */
  id: string | null;
  quantity: number;
  displayName: string;
  customerType: CustomerType;
  isServerOnly: boolean;
  stackable: boolean;
  /** By price id. */
  prices: Record<string, PriceModel>;
  /** By item id. */
  includedItems: Record<string, IncludedItemModel>;
  clientMetadata: Json;
  clientReadOnlyMetadata: Json;
  /** The active subscription that holds it; null for a product bought once, or one cancelled (owned to its end). */
  subscription: {
    subscriptionId: string | null;
    currentPeriodEndMillis: number | null;
    cancelAtPeriodEnd: boolean;
    isCancelable: boolean;
  } | null;
  /** Other products of its product line it may switch to, with their subscription prices. */
  switchOptions: Array<{ productId: string; displayName: string; prices: Record<string, PriceModel> }>;
}

/** A page of a list; pass `nextCursor` as `cursor` for the next one (null on the last). */
export interface CustomerPageModel<T> {
  items: T[];
  nextCursor: string | null;
}

/** Whether a user or team has a Stripe customer, and the card on file (`useBilling`). */
export interface BillingModel {
  hasCustomer: boolean;
  defaultPaymentMethod: {
    id: string;
    brand: string | null;
    last4: string | null;
    expMonth: number | null;
    expYear: number | null;
  } | null;
}

/** One invoice of a customer's subscriptions (`useInvoices`). */
export interface InvoiceModel {
  createdAtMillis: number;
  status: CustomerInvoice['status'];
  /** In the currency's smallest unit (cents). */
  amountTotal: number;
  hostedInvoiceUrl: string | null;
}

export function itemModel(item: CustomerItem): ItemModel {
  return {
    id: item.id,
    displayName: item.display_name,
    quantity: item.quantity,
    nonNegativeQuantity: Math.max(0, item.quantity),
  };
}

const isInterval = (value: unknown): value is DayInterval => Array.isArray(value);

function priceModel(price: ProductPrice): PriceModel {
  const amounts: Record<string, string> = {};
  for (const [key, value] of Object.entries(price)) if (typeof value === 'string') amounts[key] = value;
  return {
    amounts,
    interval: isInterval(price.interval) ? price.interval : null,
    freeTrial: isInterval(price.free_trial) ? price.free_trial : null,
  };
}

function mapValues<A, B>(record: Record<string, A>, convert: (value: A) => B): Record<string, B> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, convert(value)]));
}

const pricesOf = (product: InlineProduct) => mapValues(product.prices ?? {}, priceModel);

function includedItemModel(included: IncludedItem): IncludedItemModel {
  return {
    quantity: included.quantity ?? 0,
    repeat: included.repeat ?? 'never',
    expires: included.expires ?? 'never',
  };
}

export function customerProductModel(owned: CustomerProduct): CustomerProductModel {
  const { product, subscription } = owned;
  return {
    id: owned.id,
    quantity: owned.quantity,
    displayName: product.display_name,
    customerType: product.customer_type,
    isServerOnly: product.server_only,
    stackable: product.stackable,
    prices: pricesOf(product),
    includedItems: mapValues(product.included_items ?? {}, includedItemModel),
    clientMetadata: product.client_metadata ?? null,
    clientReadOnlyMetadata: product.client_read_only_metadata ?? null,
    subscription:
      subscription === undefined || subscription === null
        ? null
        : {
            subscriptionId: subscription.subscription_id,
            currentPeriodEndMillis:
              subscription.current_period_end === null ? null : Date.parse(subscription.current_period_end),
            cancelAtPeriodEnd: subscription.cancel_at_period_end,
            isCancelable: subscription.is_cancelable,
          },
    switchOptions: (owned.switch_options ?? []).map((option) => ({
      productId: option.product_id,
      displayName: option.product.display_name,
      prices: pricesOf(option.product),
    })),
  };
}

export function pageModel<W, M>(page: CustomerPage<W>, convert: (item: W) => M): CustomerPageModel<M> {
  return { items: page.items.map(convert), nextCursor: page.pagination.next_cursor };
}

export function billingModel(billing: CustomerBilling): BillingModel {
  const method = billing.default_payment_method;
  return {
    hasCustomer: billing.has_customer,
    defaultPaymentMethod:
      method === null
        ? null
        : {
            id: method.id,
            brand: method.brand,
            last4: method.last4,
            expMonth: method.exp_month,
            expYear: method.exp_year,
          },
  };
}

export function invoiceModel(invoice: CustomerInvoice): InvoiceModel {
  return {
    createdAtMillis: invoice.created_at_millis,
    status: invoice.status,
    amountTotal: invoice.amount_total,
    hostedInvoiceUrl: invoice.hosted_invoice_url,
  };
}
