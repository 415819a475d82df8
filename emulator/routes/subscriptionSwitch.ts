import { requireAccess } from '../http/access.js';
import type { Router } from '../http/router.js';
import { obj, validate, yup } from '../http/validate.js';
import { StatusError } from '../errors.js';
import { paymentErrors } from '../paymentErrors.js';
import { isActiveSubscription, ownedProducts, paymentsOf, purchasesOf } from '../state/payments.js';
import { intervalPrices, paymentsConfig } from '../state/paymentsConfig.js';
import {
  customerOf,
  customerParams,
  requireClientAccess,
  requireCustomerExists,
  requirePurchasesOpen,
} from './paymentChecks.js';

/** The service's sentence when payments need Stripe and the project has not connected it. */
export const PAYMENTS_NOT_SET_UP =
  'Payments are not set up in this Stack Auth project. Please go to the Stack Auth dashboard and complete the Payments onboarding.';

/**
 * `POST /payments/products/{customer_type}/{customer_id}/switch`: another plan of the same product line. The service
 * moves the Stripe subscription to it and charges the customer's card on file; a test-mode subscription has neither,
 * so after the same checks as the service's, the emulator answers as the service does for one: it cannot be switched
 * (or, from a plan included by default, that a payment method is needed).
 */
export function registerSubscriptionSwitchRoute(router: Router): void {
  router.add('POST', '/payments/products/:customer_type/:customer_id/switch', (req) => {
    const auth = requireAccess(req);
    const { params, body } = validate(req, {
      params: customerParams(['user', 'team']),
      body: obj({
        from_product_id: yup.string().defined(),
        to_product_id: yup.string().defined(),
        price_id: yup.string(),
        quantity: yup.number().integer().min(1),
      }).defined(),
    });
    const p = auth.project;
    requirePurchasesOpen(p);
    const customer = customerOf(params);
    requireClientAccess(auth, customer, 'Clients can only manage their own subscriptions.');
    const products = paymentsConfig(p).products;
    const from = Object.hasOwn(products, body.from_product_id) ? products[body.from_product_id] : undefined;
    const to = Object.hasOwn(products, body.to_product_id) ? products[body.to_product_id] : undefined;
    if (from === undefined || to === undefined) throw new StatusError(400, 'Product not found.');
    if (from.customerType !== customer.customer_type || to.customerType !== customer.customer_type)
      throw new StatusError(400, 'Product customer type does not match.');
    if (from.productLineId === undefined || from.productLineId !== to.productLineId)
      throw new StatusError(400, 'Products must be in the same product line to switch.');
    if (body.from_product_id === body.to_product_id) throw new StatusError(400, 'Product is already active.');
    if (to.isAddOnTo !== false && Object.keys(to.isAddOnTo).length > 0)
      throw new StatusError(400, 'Add-on products cannot be selected for plan switching.');
    if (to.prices === 'include-by-default')
      throw new StatusError(400, 'Include-by-default products cannot be selected for plan switching.');
    const fromIncluded = from.prices === 'include-by-default';
    if (!fromIncluded && Object.keys(intervalPrices(from)).length === 0)
      throw new StatusError(400, 'This subscription cannot be switched.');
    requireCustomerExists(p, customer);
    const subscriptions = purchasesOf(p, customer).filter((s) => isActiveSubscription(s, req.now));
    const bySubscription = new Set(subscriptions.map((s) => s.product_id));
    const oneTimeInLine = [...ownedProducts(p, customer, req.now)].some(
      ([id, owned]) =>
        owned.product.productLineId === from.productLineId && owned.quantity > 0 && !bySubscription.has(id),
    );
    if (oneTimeInLine) throw new StatusError(400, 'Customer already has a one-time purchase in this product line');
    // Every emulated subscription is a test-mode one: the service cannot switch a subscription Stripe does not hold.
    if (!fromIncluded) throw new StatusError(400, 'This subscription cannot be switched.');
    const prices = Object.entries(intervalPrices(to));
    const price = body.price_id === undefined ? prices[0] : prices.find(([id]) => id === body.price_id);
    if (price === undefined) throw new StatusError(400, 'Price not found for target product.');
    if (price[1].USD === undefined) throw new StatusError(400, 'Target price must include a USD amount.');
    if (body.quantity !== undefined && body.quantity !== 1 && to.stackable !== true)
      throw new StatusError(400, 'This product is not stackable; quantity must be 1');
    if (paymentsOf(p).stripe_account_id === null) throw new StatusError(400, PAYMENTS_NOT_SET_UP);
    throw paymentErrors.defaultPaymentMethodRequired(customer.customer_type as 'user' | 'team', customer.customer_id);
  });
}
