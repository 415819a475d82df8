import { createKnownError } from '../../protocol/errors/create.js';
import type { PurchaseCodeDetails } from '../../protocol/resources/payments.js';
import { isTrustedRedirectUrl } from '../../protocol/validation.js';
import { randomToken } from '../crypto.js';
import { StatusError } from '../errors.js';
import { ADMIN, requireAccess } from '../http/access.js';
import type { Router } from '../http/router.js';
import { json, success } from '../http/types.js';
import { anyJson, obj, url, validate, yup } from '../http/validate.js';
import { paymentErrors } from '../paymentErrors.js';
import type { ProjectRecord } from '../state/model.js';
import { ownedProducts, paymentsOf } from '../state/payments.js';
import { inlineProduct, paymentsConfig } from '../state/paymentsConfig.js';
import {
  completeTestModePurchase,
  createPurchaseCode,
  customerOfCode,
  findPurchaseCode,
  projectOfCode,
} from '../state/purchaseCodes.js';
import type { PurchaseCodeRecord } from '../state/paymentsModel.js';
import { customerOf, requireClientAccess, requirePurchasesOpen, resolveProduct } from './paymentChecks.js';
import { trustPolicy } from './password.js';
import { PAYMENTS_NOT_SET_UP } from './subscriptionSwitch.js';

/** The checkout page of a purchase URL: the emulator's own (the service's is its dashboard's `/purchase/{code}`). */
export function checkoutUrl(baseUrl: string, fullCode: string, returnUrl: string | undefined): string {
  const page = new URL(`/emulator/purchase/${encodeURIComponent(fullCode)}`, baseUrl);
  if (returnUrl !== undefined) page.searchParams.set('return_url', returnUrl);
  return page.toString();
}

function requireTrustedReturn(p: ProjectRecord, returnUrl: string | undefined): void {
  if (returnUrl !== undefined && !isTrustedRedirectUrl(returnUrl, trustPolicy(p)))
    throw createKnownError('REDIRECT_URL_NOT_WHITELISTED');
}

/** What a checkout page shows of a code: the product, whether it is owned already, what it would replace. */
export function purchaseDetails(p: ProjectRecord, code: PurchaseCodeRecord, now: number): PurchaseCodeDetails {
  const { product } = code;
  const owned = ownedProducts(p, customerOfCode(code), now);
  const alreadyBought =
    code.product_id !== null && (owned.get(code.product_id)?.quantity ?? 0) > 0 && product.stackable !== true;
  const line = product.productLineId;
  const subscribable = product.prices !== 'include-by-default' && Object.values(product.prices).some((p) => p.interval);
  const bases = product.isAddOnTo === false ? [] : Object.keys(product.isAddOnTo);
  const conflicting =
    line === undefined || !Object.hasOwn(paymentsConfig(p).productLines, line) || !subscribable
      ? []
      : [...owned]
          .filter(([id, o]) => o.product.productLineId === line && o.quantity > 0 && !bases.includes(id))
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([id, o]) => ({ product_id: id, display_name: o.product.displayName }));
  return {
    product: inlineProduct(product),
    stripe_account_id: paymentsOf(p).stripe_account_id ?? '',
    project_id: p.id,
    project_logo_url: null,
    already_bought_non_stackable: alreadyBought,
    conflicting_products: conflicting,
    test_mode: paymentsConfig(p).testMode,
    charges_enabled: true,
  };
}

/**
 * Purchase URLs and their completion (`/payments/purchases/*`, `/internal/payments/*`): a checkout URL for a customer,
 * what its code is for, and completing it in test mode, the only way the emulator takes: it has no Stripe, so a
 * project whose payments are not in test mode cannot complete one here.
 */
export function registerPurchaseRoutes(router: Router): void {
  router.add('POST', '/payments/purchases/create-purchase-url', (req) => {
    const auth = requireAccess(req);
    const { body } = validate(req, {
      body: obj({
        customer_type: yup.string().oneOf(['user', 'team', 'custom']).defined(),
        customer_id: yup.string().defined(),
        product_id: yup.string(),
        product_inline: anyJson().default(undefined),
        return_url: url(),
      }),
    });
    const p = auth.project;
    requirePurchasesOpen(p);
    const customer = customerOf({ customer_type: body?.customer_type ?? '', customer_id: body?.customer_id ?? '' });
    requireClientAccess(
      auth,
      customer,
      'Clients can only create purchase URLs for their own user or teams they have admin access to.',
    );
    if (paymentsOf(p).stripe_account_id === null) throw new StatusError(400, PAYMENTS_NOT_SET_UP);
    const product = resolveProduct(p, auth, body?.product_id, body?.product_inline ?? undefined);
    if (product.customerType !== customer.customer_type)
      throw paymentErrors.productCustomerTypeDoesNotMatch(
        body?.product_id ?? null,
        customer.customer_id,
        product.customerType,
        customer.customer_type,
      );
    const productId = body?.product_id ?? null;
    if (
      productId !== null &&
      product.stackable !== true &&
      (ownedProducts(p, customer, req.now).get(productId)?.quantity ?? 0) > 0
    )
      throw paymentErrors.productAlreadyGranted(productId, customer.customer_id);
    const code = createPurchaseCode(p, { customer, productId, product }, req.now);
    requireTrustedReturn(p, body?.return_url);
    return json({ url: checkoutUrl(req.env.baseUrl, code.full_code, body?.return_url) });
  });

  router.add('GET', '/payments/purchases/validate-code', (req) => {
    const { query } = validate(req, { query: obj({ full_code: yup.string().defined(), return_url: url() }).defined() });
    requireTrustedReturn(projectOfCode(req.env.store, query.full_code), query.return_url);
    return json({ valid: true });
  });

  router.add('POST', '/payments/purchases/validate-code', (req) => {
    const { body } = validate(req, { body: obj({ full_code: yup.string().defined(), return_url: url() }) });
    const { project, code } = findPurchaseCode(req.env.store, body?.full_code ?? '', req.now);
    requireTrustedReturn(project, body?.return_url);
    return json(purchaseDetails(project, code, req.now));
  });

  const purchaseBody = obj({
    full_code: yup.string().defined(),
    price_id: yup.string().defined(),
    quantity: yup.number().integer().min(1).default(1),
  });

  router.add('POST', '/payments/purchases/purchase-session', (req) => {
    const { body } = validate(req, { body: purchaseBody });
    const { project } = findPurchaseCode(req.env.store, body?.full_code ?? '', req.now);
    requirePurchasesOpen(project);
    throw new StatusError(
      400,
      "The emulator takes no payments (it has no Stripe): complete the purchase in test mode (the checkout page's button, or POST /internal/payments/test-mode-purchase-session).",
    );
  });

  router.add('POST', '/internal/payments/test-mode-purchase-session', (req) => {
    const { body } = validate(req, { body: purchaseBody });
    completeTestModePurchase(
      req.env.store,
      { fullCode: body?.full_code ?? '', priceId: body?.price_id ?? '', quantity: body?.quantity ?? 1 },
      req.now,
    );
    return success();
  });

  // Connecting Stripe, which the emulator only records: purchase URLs need it done, as on the service.
  router.add('POST', '/internal/payments/setup', (req) => {
    const auth = requireAccess(req, ADMIN);
    validate(req, { body: obj({}) });
    const payments = paymentsOf(auth.project);
    payments.stripe_account_id ??= `acct_${randomToken(24)}`;
    return json({ url: `${req.env.baseUrl}/emulator` });
  });
}
