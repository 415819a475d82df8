/**
 * Payments as the service serves them to a client and a server (`/payments/...`; newer than PROTOCOL.md, which is
 * v2.7): items (a customer's quantity of something, such as credits or seats), products (what a customer owns, with
 * its prices and the items it includes), purchase URLs, subscriptions, billing and invoices. A customer is a user, a
 * team or an id of the app's own (`custom`); the project's configuration defines the items and products.
 */
import type { Json } from './common.js';

/** Whose items and products: a user, a team, or an id the app chose (`custom`, server access only). */
export type CustomerType = 'user' | 'team' | 'custom';

/** A period of time: `[1, 'month']`. */
export type DayInterval = [number, 'day' | 'week' | 'month' | 'year'];

/** `GET /payments/items/{customer_type}/{customer_id}/{item_id}`. */
export interface CustomerItem {
  id: string;
  display_name: string;
  /** May be negative (a server may allow it). */
  quantity: number;
}

/**
 * `POST /payments/items/{customer_type}/{customer_id}/{item_id}/update-quantity?allow_negative=…` (server only).
 * `delta` is a whole number; `expires_at` an ISO 8601 time after which the change no longer counts.
 */
export interface ItemQuantityChange {
  delta: number;
  expires_at?: string;
  description?: string;
}

/** One price of a product: amounts by currency code (`USD: '9.99'`), and for a subscription its interval. */
export interface ProductPrice {
  [currency: string]: string | DayInterval | undefined;
  interval?: DayInterval;
  free_trial?: DayInterval;
}

/** What a product gives of an item, per unit bought; `repeat` grants it again every interval. */
export interface IncludedItem {
  quantity?: number;
  repeat?: DayInterval | 'never';
  expires?: 'never' | 'when-purchase-expires' | 'when-repeated';
}

/** A product as the service shows it (the "inline" form), keyed by price id and item id. */
export interface InlineProduct {
  display_name: string;
  customer_type: CustomerType;
  free_trial?: DayInterval;
  server_only: boolean;
  stackable: boolean;
  prices: Record<string, ProductPrice>;
  included_items: Record<string, IncludedItem>;
  client_metadata?: Json;
  client_read_only_metadata?: Json;
  server_metadata?: Json;
}

/** A product a customer owns (`GET /payments/products/{customer_type}/{customer_id}`). */
export interface CustomerProduct {
  /** The product's id in the configuration; null for a product granted inline by a server. */
  id: string | null;
  quantity: number;
  product: InlineProduct;
  /** Deprecated by the service, still sent: `subscription` while an active subscription holds it. */
  type?: 'one_time' | 'subscription';
  /** The active subscription that holds it, if any. */
  subscription?: {
    subscription_id: string | null;
    /** ISO 8601. */
    current_period_end: string | null;
    cancel_at_period_end: boolean;
    is_cancelable: boolean;
  } | null;
  /** The other products of its product line it could switch to (subscriptions only), each with its interval prices. */
  switch_options?: Array<{ product_id: string; product: InlineProduct }>;
}

/** A page of a customer's products or invoices (`limit` 1–100, default 10; `cursor` from `next_cursor`). */
export interface CustomerPage<T> {
  items: T[];
  is_paginated: true;
  pagination: { next_cursor: string | null };
}

/** `limit` and `cursor` of a page. */
export interface CustomerPageQuery {
  cursor?: string;
  limit?: number;
}

/** `POST /payments/purchases/create-purchase-url`: a product of the configuration, or (servers only) one inline. */
export interface PurchaseUrlRequest {
  customer_type: CustomerType;
  customer_id: string;
  product_id?: string;
  product_inline?: InlineProduct;
  /** Where the checkout returns to: a trusted domain of the project. */
  return_url?: string;
}

/** `POST /payments/products/{customer_type}/{customer_id}` (server only): grants without a purchase. */
export interface ProductGrant {
  product_id?: string;
  product_inline?: InlineProduct;
  quantity?: number;
}

/** `POST /payments/products/{customer_type}/{customer_id}/switch`: another product of the same product line. */
export interface SubscriptionSwitch {
  from_product_id: string;
  to_product_id: string;
  price_id?: string;
  quantity?: number;
}

/** `GET /payments/billing/{customer_type}/{customer_id}` (users and teams). */
export interface CustomerBilling {
  has_customer: boolean;
  default_payment_method: {
    id: string;
    brand: string | null;
    last4: string | null;
    exp_month: number | null;
    exp_year: number | null;
  } | null;
}

/** One invoice of a customer's subscriptions (`GET /payments/invoices/{customer_type}/{customer_id}`). */
export interface CustomerInvoice {
  created_at_millis: number;
  status: 'draft' | 'open' | 'paid' | 'uncollectible' | 'void' | null;
  /** In the currency's smallest unit (cents). */
  amount_total: number;
  hosted_invoice_url: string | null;
}

/** `POST /payments/purchases/validate-code`: what a checkout page shows of a purchase URL's code. */
export interface PurchaseCodeDetails {
  product: InlineProduct;
  stripe_account_id: string;
  project_id: string;
  project_logo_url: string | null;
  already_bought_non_stackable: boolean;
  conflicting_products: Array<{ product_id: string; display_name: string }>;
  /** Whether the project's payments run in test mode (a purchase completes without Stripe). */
  test_mode: boolean;
  charges_enabled: boolean;
}

/** `POST /internal/payments/test-mode-purchase-session`: completes a purchase URL's purchase in test mode. */
export interface TestModePurchase {
  full_code: string;
  price_id: string;
  quantity?: number;
}
