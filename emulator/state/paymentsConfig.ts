import type { Json } from '../../protocol/resources/common.js';
import type {
  CustomerType,
  DayInterval,
  IncludedItem,
  InlineProduct,
  ProductPrice,
} from '../../protocol/resources/payments.js';
import { isJsonObject, mergedOverrides, type JsonObject } from './configOverrides.js';
import type { ProjectRecord } from './model.js';
import type { IncludedItemConfig, PriceConfig, ProductConfig } from './paymentsModel.js';

/**
 * A project's payments as its configuration sets them (`payments.*` of the config overrides, the service's model
 * today): items, products and product lines, test mode and the purchase switch, read with the defaults the service
 * renders (a product's name is its id, test mode is on). Nothing here is stored: the overrides are the truth.
 */
export interface PaymentsConfig {
  /** On unless set off: purchases complete without Stripe (the service's default for new projects). */
  testMode: boolean;
  blockNewPurchases: boolean;
  items: Record<string, { displayName: string; customerType: CustomerType }>;
  products: Record<string, ProductConfig>;
  productLines: Record<string, { displayName?: string; customerType?: CustomerType }>;
}

const CUSTOMER_TYPES: readonly string[] = ['user', 'team', 'custom'];
const customerTypeOf = (value: Json | undefined): CustomerType =>
  typeof value === 'string' && CUSTOMER_TYPES.includes(value) ? (value as CustomerType) : 'user';
const objectOf = (value: Json | undefined): JsonObject => (isJsonObject(value) ? value : {});
const isInterval = (value: Json | undefined): value is DayInterval =>
  Array.isArray(value) && value.length === 2 && typeof value[0] === 'number' && typeof value[1] === 'string';
/** A currency code of a price (`USD`); every other key of a price is one of its settings. */
export const isCurrency = (key: string) => /^[A-Z]{3}$/.test(key);

/**
 * Object keys in the order Postgres's `jsonb` keeps them (shorter first, then by bytes): the order in which the service
 * reads a product's prices, so that "the first price" is the same one here.
 */
export function jsonbOrder(keys: string[]): string[] {
  return [...keys].sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
}

function priceConfig(value: Json | undefined): PriceConfig {
  const price = objectOf(value);
  const out: PriceConfig = { serverOnly: price.serverOnly === true };
  for (const [key, amount] of Object.entries(price))
    if (isCurrency(key) && typeof amount === 'string') out[key] = amount;
  if (isInterval(price.interval)) out.interval = price.interval;
  if (isInterval(price.freeTrial)) out.freeTrial = price.freeTrial;
  return out;
}

function includedItemConfig(value: Json | undefined): IncludedItemConfig {
  const item = objectOf(value);
  const expires = item.expires;
  return {
    quantity: typeof item.quantity === 'number' ? item.quantity : 0,
    repeat: isInterval(item.repeat) ? item.repeat : 'never',
    expires: expires === 'never' || expires === 'when-purchase-expires' ? expires : 'when-repeated',
  };
}

function mapObject<T>(
  value: Json | undefined,
  convert: (inner: Json | undefined, key: string) => T,
): Record<string, T> {
  return Object.fromEntries(Object.entries(objectOf(value)).map(([key, inner]) => [key, convert(inner, key)]));
}

/** One product of the configuration, with the service's defaults. */
export function productConfig(value: Json | undefined, id: string): ProductConfig {
  const product = objectOf(value);
  const isAddOnTo = product.isAddOnTo;
  return {
    displayName: typeof product.displayName === 'string' ? product.displayName : id,
    ...(typeof product.productLineId === 'string' ? { productLineId: product.productLineId } : {}),
    customerType: customerTypeOf(product.customerType),
    serverOnly: product.serverOnly === true,
    ...(typeof product.stackable === 'boolean' ? { stackable: product.stackable } : {}),
    isAddOnTo: isJsonObject(isAddOnTo) ? mapObject(isAddOnTo, () => true as const) : false,
    ...(isInterval(product.freeTrial) ? { freeTrial: product.freeTrial } : {}),
    prices: product.prices === 'include-by-default' ? 'include-by-default' : mapObject(product.prices, priceConfig),
    includedItems: mapObject(product.includedItems, includedItemConfig),
    ...(product.clientMetadata === undefined ? {} : { clientMetadata: product.clientMetadata }),
    ...(product.clientReadOnlyMetadata === undefined ? {} : { clientReadOnlyMetadata: product.clientReadOnlyMetadata }),
    ...(product.serverMetadata === undefined ? {} : { serverMetadata: product.serverMetadata }),
  };
}

/** The project's payments configuration now. */
export function paymentsConfig(p: ProjectRecord): PaymentsConfig {
  const payments = objectOf(mergedOverrides(p).payments);
  return {
    testMode: payments.testMode !== false,
    blockNewPurchases: payments.blockNewPurchases === true,
    items: mapObject(payments.items, (value, id) => {
      const item = objectOf(value);
      return {
        displayName: typeof item.displayName === 'string' ? item.displayName : id,
        customerType: customerTypeOf(item.customerType),
      };
    }),
    products: mapObject(payments.products, productConfig),
    productLines: mapObject(payments.productLines, (value) => {
      const line = objectOf(value);
      return {
        ...(typeof line.displayName === 'string' ? { displayName: line.displayName } : {}),
        ...(typeof line.customerType === 'string' ? { customerType: customerTypeOf(line.customerType) } : {}),
      };
    }),
  };
}

/** The prices of a product that renew (subscriptions), by id. */
export function intervalPrices(product: ProductConfig): Record<string, PriceConfig> {
  if (product.prices === 'include-by-default') return {};
  return Object.fromEntries(Object.entries(product.prices).filter(([, price]) => price.interval !== undefined));
}

function inlinePrice(price: PriceConfig): ProductPrice {
  const out: ProductPrice = {};
  for (const [key, value] of Object.entries(price)) if (isCurrency(key) && typeof value === 'string') out[key] = value;
  if (price.interval !== undefined) out.interval = price.interval;
  if (price.freeTrial !== undefined) out.free_trial = price.freeTrial;
  return out;
}

/** A product in the form the service shows (`display_name`, `prices`, `included_items`…). */
export function inlineProduct(product: ProductConfig, prices = product.prices): InlineProduct {
  return {
    display_name: product.displayName,
    customer_type: product.customerType,
    stackable: product.stackable === true,
    server_only: product.serverOnly,
    included_items: { ...product.includedItems },
    client_metadata: product.clientMetadata ?? null,
    client_read_only_metadata: product.clientReadOnlyMetadata ?? null,
    server_metadata: product.serverMetadata ?? null,
    prices:
      prices === 'include-by-default'
        ? {}
        : Object.fromEntries(Object.entries(prices).map(([id, price]) => [id, inlinePrice(price)])),
  };
}

/**
 * A product a server described inline, as the configuration would hold it: server-only by default, never stackable,
 * its items kept until it ends unless they say otherwise.
 */
export function productFromInline(inline: InlineProduct): ProductConfig {
  const prices: Record<string, PriceConfig> = {};
  for (const [id, price] of Object.entries(inline.prices)) {
    const out: PriceConfig = { serverOnly: true };
    for (const [key, value] of Object.entries(price))
      if (isCurrency(key) && typeof value === 'string') out[key] = value;
    if (price.interval !== undefined) out.interval = price.interval;
    if (price.free_trial !== undefined) out.freeTrial = price.free_trial;
    prices[id] = out;
  }
  const included = (item: IncludedItem): IncludedItemConfig => ({
    quantity: item.quantity ?? 0,
    repeat: item.repeat ?? 'never',
    expires: item.expires ?? 'never',
  });
  return {
    displayName: inline.display_name,
    customerType: inline.customer_type,
    serverOnly: inline.server_only ?? true,
    stackable: false,
    isAddOnTo: false,
    ...(inline.free_trial === undefined ? {} : { freeTrial: inline.free_trial }),
    prices,
    includedItems: Object.fromEntries(
      Object.entries(inline.included_items ?? {}).map(([id, item]) => [id, included(item)]),
    ),
    ...(inline.client_metadata == null ? {} : { clientMetadata: inline.client_metadata }),
    ...(inline.client_read_only_metadata == null ? {} : { clientReadOnlyMetadata: inline.client_read_only_metadata }),
    ...(inline.server_metadata == null ? {} : { serverMetadata: inline.server_metadata }),
  };
}
