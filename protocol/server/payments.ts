/**
 * The payments of `authbroker/server`: a customer's items (reading them, and the changes only a server may make),
 * products, grants and checkout URLs, in the app's models (paymentModels.ts). Customers are named as the SDK names
 * them: `{ userId }`, `{ teamId }` or `{ customCustomerId }`.
 */
import { requireNonEmptyString, requireObject, requirePositiveInteger, requireSegment } from '../args.js';
import * as payments from '../endpoints/payments.js';
import { isKnownError } from '../errors/knownError.js';
import {
  customerProductModel,
  customerRef,
  itemModel,
  pageModel,
  type Customer,
  type CustomerProductModel,
  type ItemModel,
  type CustomerPageModel,
} from '../paymentModels.js';
import type { InlineProduct, CustomerPageQuery } from '../resources/payments.js';
import type { ServerAccess } from '../resources/views.js';
import type { Transport } from '../transport.js';

/** A product of the project's configuration by id, or (servers only) one described inline. */
export type ProductChoice = { productId: string } | { product: InlineProduct };

function productBody(choice: ProductChoice): { product_id: string } | { product_inline: InlineProduct } {
  const c = requireObject(choice, 'product');
  if ('productId' in c) return { product_id: requireSegment(c.productId, 'product.productId') };
  return { product_inline: requireObject(c.product, 'product.product') as unknown as InlineProduct };
}

/** The service's code of a known error, also when this version's catalogue does not hold it. */
function serviceCode(error: unknown): string | null {
  if (!isKnownError(error)) return null;
  const details = error.details as { originalErrorCode?: unknown } | undefined;
  return error.code === 'UNSUPPORTED_ERROR' && typeof details?.originalErrorCode === 'string'
    ? details.originalErrorCode
    : error.code;
}

/** The payments methods of a server app, over its transport. */
export function serverPayments(t: Transport<ServerAccess>) {
  const change = async (
    customer: Customer,
    itemId: string,
    delta: number,
    options: { allowNegative?: boolean; expiresAtMillis?: number; description?: string } = {},
  ) => {
    const { customerType, customerId } = customerRef(customer);
    await payments.updateItemQuantity(
      t,
      customerType,
      customerId,
      itemId,
      {
        delta,
        ...(options.expiresAtMillis === undefined
          ? {}
          : { expires_at: new Date(options.expiresAtMillis).toISOString() }),
        ...(options.description === undefined
          ? {}
          : { description: requireNonEmptyString(options.description, 'description') }),
      },
      options.allowNegative ?? false,
    );
  };
  return {
    /** A customer's quantity of an item (any customer: a server reads them all). */
    async getItem(customer: Customer, itemId: string): Promise<ItemModel> {
      const { customerType, customerId } = customerRef(customer);
      return itemModel(await payments.getItem(t, customerType, customerId, itemId));
    },
    /**
     * Changes a customer's quantity of an item by `delta` (the service's update-quantity). Refused with
     * ITEM_QUANTITY_INSUFFICIENT_AMOUNT when it would go below zero, unless `allowNegative`; `expiresAtMillis` makes the
     * change count only until then.
     */
    updateItemQuantity: change,
    /** Adds `amount` to a customer's quantity of an item. */
    increaseItemQuantity: (customer: Customer, itemId: string, amount: number) =>
      change(customer, itemId, requirePositiveInteger(amount, 'amount')),
    /** Takes `amount` away, even below zero. */
    decreaseItemQuantity: (customer: Customer, itemId: string, amount: number) =>
      change(customer, itemId, -requirePositiveInteger(amount, 'amount'), { allowNegative: true }),
    /** Takes `amount` away if the customer has that many (true), else changes nothing (false): for prepaid credits. */
    async tryDecreaseItemQuantity(customer: Customer, itemId: string, amount: number): Promise<boolean> {
      try {
        await change(customer, itemId, -requirePositiveInteger(amount, 'amount'));
        return true;
      } catch (error) {
        if (serviceCode(error) === 'ITEM_QUANTITY_INSUFFICIENT_AMOUNT') return false;
        throw error;
      }
    },
    /** One page of the products a customer owns (server-only ones included). */
    async listProducts(
      customer: Customer,
      query?: CustomerPageQuery,
    ): Promise<CustomerPageModel<CustomerProductModel>> {
      const { customerType, customerId } = customerRef(customer);
      return pageModel(await payments.listCustomerProducts(t, customerType, customerId, query), customerProductModel);
    },
    /** Gives a customer a product without a purchase; answers the subscription's id for a subscription product. */
    async grantProduct(
      customer: Customer,
      product: ProductChoice,
      quantity?: number,
    ): Promise<{ subscriptionId: string | null }> {
      const { customerType, customerId } = customerRef(customer);
      const granted = await payments.grantProduct(t, customerType, customerId, {
        ...productBody(product),
        ...(quantity === undefined ? {} : { quantity: requirePositiveInteger(quantity, 'quantity') }),
      });
      return { subscriptionId: granted.subscription_id ?? null };
    },
    /**
     * A checkout URL for a customer (any customer, and inline products, from a server); it comes back to `returnUrl`
     * (a trusted domain).
     */
    createCheckoutUrl(customer: Customer, options: ProductChoice & { returnUrl?: string }): Promise<string> {
      const { customerType, customerId } = customerRef(customer);
      const { returnUrl } = requireObject(options, 'options');
      return payments.createPurchaseUrl(t, {
        customer_type: customerType,
        customer_id: customerId,
        ...productBody(options),
        ...(returnUrl === undefined ? {} : { return_url: requireNonEmptyString(returnUrl, 'options.returnUrl') }),
      });
    },
    /** Cancels a customer's subscription to a product (owned until its period ends). */
    cancelSubscription(customer: Customer, options: { productId: string; subscriptionId?: string }): Promise<void> {
      const { customerType, customerId } = customerRef(customer);
      const { productId, subscriptionId } = requireObject(options, 'options') as typeof options;
      return payments.cancelSubscription(t, customerType, customerId, productId, subscriptionId);
    },
  };
}

/** What {@link serverPayments} gives a server app. */
export type ServerPayments = ReturnType<typeof serverPayments>;
