import type { Json } from '../../protocol/resources/common.js';
import type { CustomerType, DayInterval } from '../../protocol/resources/payments.js';

/**
 * What the emulator keeps of a project's payments (state/payments.ts reads and writes it): what was bought or
 * granted, the changes servers made to item quantities, the open purchase URLs, and the Stripe bookkeeping the
 * service does around them (a connected account per project, a customer per buyer), which in the emulator is only
 * a record that it happened. Products and items themselves are configuration (state/paymentsConfig.ts).
 */
export interface PaymentsRecord {
  /** Set by `POST /internal/payments/setup` (the demo project is seeded with one): purchase URLs need it. */
  stripe_account_id: string | null;
  /** Customers the service would have made a Stripe customer for (a purchase URL was made): `type:id`. */
  stripe_customers: string[];
  purchases: PurchaseRecord[];
  item_changes: ItemChangeRecord[];
  purchase_codes: PurchaseCodeRecord[];
}

/** A product as the configuration holds it, defaults filled in (the service's rendered config). */
export interface ProductConfig {
  displayName: string;
  productLineId?: string;
  customerType: CustomerType;
  serverOnly: boolean;
  stackable?: boolean;
  isAddOnTo: false | Record<string, true>;
  freeTrial?: DayInterval;
  prices: 'include-by-default' | Record<string, PriceConfig>;
  includedItems: Record<string, IncludedItemConfig>;
  clientMetadata?: Json;
  clientReadOnlyMetadata?: Json;
  serverMetadata?: Json;
}

export interface PriceConfig {
  /** Currency code → amount (`USD: '9.99'`); the other keys below. */
  [currency: string]: string | boolean | DayInterval | undefined;
  interval?: DayInterval;
  freeTrial?: DayInterval;
  serverOnly?: boolean;
}

export interface IncludedItemConfig {
  quantity: number;
  repeat: DayInterval | 'never';
  expires: 'never' | 'when-purchase-expires' | 'when-repeated';
}

/** A one-time purchase or a subscription, with the product as it was when bought. */
export interface PurchaseRecord {
  id: string;
  kind: 'one_time' | 'subscription';
  customer_type: CustomerType;
  customer_id: string;
  /** Null for a product a server granted inline. */
  product_id: string | null;
  price_id: string | null;
  product: ProductConfig;
  quantity: number;
  created_at_millis: number;
  /** How it came: a test-mode checkout, a server's grant. */
  creation_source: 'TEST_MODE' | 'API_GRANT';
  /** Subscriptions only. */
  subscription?: {
    status: 'active' | 'canceled';
    current_period_end_millis: number;
    cancel_at_period_end: boolean;
    /** When it stops being owned (a cancelled one at the end of its period, a replaced one at once). */
    ended_at_millis: number | null;
  };
}

/** A server's change to an item's quantity (`update-quantity`). */
export interface ItemChangeRecord {
  id: string;
  customer_type: CustomerType;
  customer_id: string;
  item_id: string;
  delta: number;
  expires_at_millis: number | null;
  description: string | null;
  created_at_millis: number;
}

/** An open purchase URL: its code (the last path segment of the URL) and what it sells to whom. */
export interface PurchaseCodeRecord {
  full_code: string;
  customer_id: string;
  product_id: string | null;
  product: ProductConfig;
  created_at_millis: number;
  expires_at_millis: number;
}
