import type { BrokerApi } from '../../contract/api.js';
import * as payments from '../../protocol/endpoints/payments.js';
import { customerRef, type Customer } from '../../protocol/paymentModels.js';
import type { ApiContext } from './context.js';

type PaymentMethods = 'createCheckoutUrl' | 'cancelSubscription' | 'switchSubscription' | 'refreshPayments';

/** The payments queries, whose entries for one customer a change makes stale. */
const PAYMENT_QUERIES = ['item', 'products', 'billing', 'invoices'] as const;

/**
 * The signed-in user's payments: checkout URLs, and changes to subscriptions. What a customer has is in the cache
 * (the `item`, `products`, `billing` and `invoices` queries, shared by every tab): a change here, or the app's word
 * that one happened elsewhere (a checkout completed, a server's change), marks that customer's entries stale, and
 * every tab watching them sees the new values from one refetch each.
 */
export function paymentMethods({
  transports,
  queries,
}: Pick<ApiContext, 'transports' | 'queries'>): Pick<BrokerApi, PaymentMethods> {
  const t = transports.client;
  const changed = (customer: Customer) => {
    const { customerType, customerId } = customerRef(customer);
    for (const kind of PAYMENT_QUERIES) queries.invalidate({ kind, customerType, customerId });
  };
  return {
    createCheckoutUrl(customer, { productId, returnUrl }) {
      const { customerType, customerId } = customerRef(customer);
      return payments.createPurchaseUrl(t, {
        customer_type: customerType,
        customer_id: customerId,
        product_id: productId,
        ...(returnUrl === undefined ? {} : { return_url: returnUrl }),
      });
    },
    async cancelSubscription(customer, { productId, subscriptionId }) {
      const { customerType, customerId } = customerRef(customer);
      await payments.cancelSubscription(t, customerType, customerId, productId, subscriptionId);
      changed(customer);
    },
    async switchSubscription(customer, { fromProductId, toProductId, priceId, quantity }) {
      const { customerType, customerId } = customerRef(customer);
      await payments.switchSubscription(t, customerType as 'user' | 'team', customerId, {
        from_product_id: fromProductId,
        to_product_id: toProductId,
        ...(priceId === undefined ? {} : { price_id: priceId }),
        ...(quantity === undefined ? {} : { quantity }),
      });
      changed(customer);
    },
    async refreshPayments(customer) {
      changed(customer);
    },
  };
}
