import type { CustomerProduct } from '../../protocol/resources/payments.js';
import type { AuthContext } from '../auth/authenticate.js';
import { StatusError } from '../errors.js';
import { requireAccess, SERVER } from '../http/access.js';
import type { Router } from '../http/router.js';
import { json, success, type ApiRequest } from '../http/types.js';
import { anyJson, obj, validate, yup } from '../http/validate.js';
import { paymentErrors } from '../paymentErrors.js';
import type { ProjectRecord } from '../state/model.js';
import {
  cancelSubscriptions,
  grantProduct,
  INLINE_PRODUCT_KEY,
  isActiveSubscription,
  itemQuantity,
  ownedProducts,
  paymentsOf,
  purchasesOf,
  type CustomerKey,
} from '../state/payments.js';
import { inlineProduct, intervalPrices, paymentsConfig } from '../state/paymentsConfig.js';
import type { PurchaseRecord } from '../state/paymentsModel.js';
import {
  customerOf,
  customerParams,
  pageOf,
  requireClientAccess,
  requireCustomerExists,
  resolveProduct,
} from './paymentChecks.js';
import { registerSubscriptionSwitchRoute } from './subscriptionSwitch.js';

/**
 * A customer's items and products as the service serves them (`/payments/items/...`, `/payments/products/...`):
 * reading an item's quantity, a server changing it, the products owned with their subscriptions and the plans they
 * may switch to, a server's grant, and cancelling a subscription.
 */
export function registerPaymentRoutes(router: Router): void {
  registerItemRoutes(router);
  registerProductRoutes(router);
  registerSubscriptionSwitchRoute(router);
}

/** The item's configuration, for a customer of its type (ITEM_NOT_FOUND, ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH). */
function requireItem(p: ProjectRecord, customer: CustomerKey, itemId: string) {
  const items = paymentsConfig(p).items;
  const item = Object.hasOwn(items, itemId) ? items[itemId] : undefined;
  if (item === undefined) throw paymentErrors.itemNotFound(itemId);
  if (item.customerType !== customer.customer_type)
    throw paymentErrors.itemCustomerTypeDoesNotMatch(
      itemId,
      customer.customer_id,
      item.customerType,
      customer.customer_type,
    );
  return item;
}

function registerItemRoutes(router: Router): void {
  const params = customerParams(undefined, { item_id: yup.string().defined() });
  router.add('GET', '/payments/items/:customer_type/:customer_id/:item_id', (req) => {
    const auth = requireAccess(req);
    const { params: path } = validate(req, { params });
    const customer = customerOf(path);
    requireClientAccess(auth, customer, 'Clients can only access their own user or team items.');
    const item = requireItem(auth.project, customer, path.item_id);
    requireCustomerExists(auth.project, customer);
    return json({
      id: path.item_id,
      display_name: item.displayName,
      quantity: itemQuantity(auth.project, customer, path.item_id, req.now),
    });
  });

  router.add('POST', '/payments/items/:customer_type/:customer_id/:item_id/update-quantity', (req) => {
    const auth = requireAccess(req, SERVER);
    const {
      params: path,
      query,
      body,
    } = validate(req, {
      params,
      query: obj({
        allow_negative: yup.string().oneOf(['true', 'false']).defined(),
      }).defined(),
      body: obj({
        delta: yup.number().integer().defined(),
        expires_at: yup.string(),
        description: yup.string(),
      }).defined(),
    });
    const customer = customerOf(path);
    requireItem(auth.project, customer, path.item_id);
    requireCustomerExists(auth.project, customer);
    const total = itemQuantity(auth.project, customer, path.item_id, req.now);
    if (query.allow_negative !== 'true' && total + body.delta < 0)
      throw paymentErrors.itemQuantityInsufficientAmount(path.item_id, customer.customer_id, body.delta);
    const expires = body.expires_at === undefined ? null : Date.parse(body.expires_at);
    paymentsOf(auth.project).item_changes.push({
      id: crypto.randomUUID(),
      ...customer,
      item_id: path.item_id,
      delta: body.delta,
      expires_at_millis: expires === null || Number.isNaN(expires) ? null : expires,
      description: body.description ?? null,
      created_at_millis: req.now,
    });
    return json({});
  });
}

/** The plans of each product line a customer could switch to: subscription products, each with its renewing prices. */
function switchOptionsByLine(p: ProjectRecord, auth: AuthContext, customer: CustomerKey) {
  const byLine = new Map<string, NonNullable<CustomerProduct['switch_options']>>();
  for (const [productId, product] of Object.entries(paymentsConfig(p).products)) {
    if (product.customerType !== customer.customer_type || product.productLineId === undefined) continue;
    if (auth.type === 'client' && product.serverOnly) continue;
    if (product.isAddOnTo !== false && Object.keys(product.isAddOnTo).length > 0) continue;
    const prices = intervalPrices(product);
    if (Object.keys(prices).length === 0) continue;
    const options = byLine.get(product.productLineId) ?? [];
    options.push({ product_id: productId, product: inlineProduct(product, prices) });
    byLine.set(product.productLineId, options);
  }
  return byLine;
}

function subscriptionView(subscription: PurchaseRecord): CustomerProduct['subscription'] {
  return {
    subscription_id: subscription.id,
    current_period_end: new Date(subscription.subscription!.current_period_end_millis).toISOString(),
    cancel_at_period_end: subscription.subscription!.cancel_at_period_end,
    is_cancelable: true,
  };
}

/** What a customer owns, sorted by product id, each with its active subscription and its plans to switch to. */
function ownedProductViews(p: ProjectRecord, auth: AuthContext, customer: CustomerKey, now: number) {
  const active = new Map(
    purchasesOf(p, customer)
      .filter((s) => isActiveSubscription(s, now))
      .map((s) => [s.product_id ?? INLINE_PRODUCT_KEY, s] as const),
  );
  const options = switchOptionsByLine(p, auth, customer);
  return [...ownedProducts(p, customer, now)]
    .filter(([, owned]) => owned.quantity > 0 && !(auth.type === 'client' && owned.product.serverOnly))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([productId, owned]) => {
      const line = owned.product.productLineId;
      const subscription = active.get(productId);
      const item: CustomerProduct = {
        id: productId === INLINE_PRODUCT_KEY ? null : productId,
        quantity: owned.quantity,
        product: inlineProduct(owned.product),
        type: subscription ? 'subscription' : 'one_time',
        subscription: subscription ? subscriptionView(subscription) : null,
        ...(line === undefined
          ? {}
          : { switch_options: (options.get(line) ?? []).filter((option) => option.product_id !== productId) }),
      };
      return { cursor: productId, item };
    });
}

function registerProductRoutes(router: Router): void {
  const base = '/payments/products/:customer_type/:customer_id';
  router.add('GET', base, (req) => {
    const auth = requireAccess(req);
    const { params, query } = validate(req, {
      params: customerParams(),
      query: obj({ cursor: yup.string(), limit: yup.string() }),
    });
    const customer = customerOf(params);
    requireClientAccess(auth, customer, 'Clients can only access their own user or team products.');
    requireCustomerExists(auth.project, customer);
    return json(pageOf(ownedProductViews(auth.project, auth, customer, req.now), query ?? {}));
  });

  router.add('POST', base, (req) => {
    const auth = requireAccess(req, SERVER);
    const { params, body } = validate(req, {
      params: customerParams(),
      body: obj({
        product_id: yup.string(),
        product_inline: anyJson().default(undefined),
        quantity: yup.number().integer().min(1).default(1),
      }).defined(),
    });
    const customer = customerOf(params);
    requireCustomerExists(auth.project, customer);
    const product = resolveProduct(auth.project, auth, body.product_id, body.product_inline ?? undefined);
    if (product.customerType !== customer.customer_type)
      throw paymentErrors.productCustomerTypeDoesNotMatch(
        body.product_id ?? null,
        customer.customer_id,
        product.customerType,
        customer.customer_type,
      );
    const granted = grantProduct(
      auth.project,
      {
        customer,
        product,
        productId: body.product_id ?? null,
        priceId: null,
        quantity: body.quantity,
        source: 'API_GRANT',
      },
      req.now,
    );
    return json({ success: true, ...(granted?.subscription ? { subscription_id: granted.id } : {}) });
  });

  router.add('DELETE', `${base}/:product_id`, (req) => cancel(req));
}

/** `DELETE …/{product_id}`: the customer's active subscriptions to the product (or the one named) end with their period. */
function cancel(req: ApiRequest) {
  const auth = requireAccess(req);
  const { params, query } = validate(req, {
    params: customerParams(undefined, { product_id: yup.string().defined() }),
    query: obj({ subscription_id: yup.string() }),
  });
  const customer = customerOf(params);
  if (auth.type === 'client') {
    const forbidden =
      customer.customer_type === 'custom'
        ? 'Clients can only cancel user or team subscriptions they control.'
        : 'Clients can only cancel their own subscriptions.';
    requireClientAccess(auth, customer, forbidden);
  }
  const p = auth.project;
  requireCustomerExists(p, customer);
  const subscriptionId = query?.subscription_id;
  let subscriptions = purchasesOf(p, customer).filter((s) => isActiveSubscription(s, req.now));
  if (subscriptionId !== undefined) {
    subscriptions = subscriptions.filter((s) => s.id === subscriptionId);
    if (subscriptions.length === 0)
      throw new StatusError(400, 'No active subscription found with this ID for the given customer.');
  } else {
    const product = resolveProduct(p, auth, params.product_id, undefined);
    if (product.customerType !== customer.customer_type)
      throw paymentErrors.productCustomerTypeDoesNotMatch(
        params.product_id,
        customer.customer_id,
        product.customerType,
        customer.customer_type,
      );
    if ((ownedProducts(p, customer, req.now).get(params.product_id)?.quantity ?? 0) <= 0)
      throw new StatusError(400, 'Customer does not have this product.');
    subscriptions = subscriptions.filter((s) => s.product_id === params.product_id);
    if (subscriptions.length === 0)
      throw new StatusError(400, 'This product is a one time purchase and cannot be canceled.');
  }
  cancelSubscriptions(subscriptions);
  return success();
}
