import { createKnownError } from '../../protocol/errors/create.js';
import { randomToken } from '../crypto.js';
import { StatusError } from '../errors.js';
import { paymentErrors } from '../paymentErrors.js';
import type { ProjectRecord } from './model.js';
import { grantProduct, paymentsOf, type CustomerKey } from './payments.js';
import { paymentsConfig } from './paymentsConfig.js';
import type { ProductConfig, PurchaseCodeRecord } from './paymentsModel.js';
import type { Store } from './store.js';

/**
 * Purchase URLs: the code a checkout URL carries (`<project id>_<code>`, as the service writes it), valid for a day,
 * and completing its purchase in test mode, which the API (`/internal/payments/test-mode-purchase-session`) and the
 * emulator's own checkout page both do.
 */
const PURCHASE_CODE_LIFETIME_MILLIS = 24 * 3600 * 1000;

export function createPurchaseCode(
  p: ProjectRecord,
  sale: { customer: CustomerKey; productId: string | null; product: ProductConfig },
  now: number,
): PurchaseCodeRecord {
  const payments = paymentsOf(p);
  // The service keeps a Stripe customer per buyer from here on (what `billing` reports).
  const key = `${sale.customer.customer_type}:${sale.customer.customer_id}`;
  if (!payments.stripe_customers.includes(key)) payments.stripe_customers.push(key);
  const record: PurchaseCodeRecord = {
    full_code: `${p.id}_${randomToken()}`,
    customer_id: sale.customer.customer_id,
    product_id: sale.productId,
    product: structuredClone(sale.product),
    created_at_millis: now,
    expires_at_millis: now + PURCHASE_CODE_LIFETIME_MILLIS,
  };
  payments.purchase_codes.push(record);
  return record;
}

/** The project a full code names (the part before its last `_`), or VERIFICATION_CODE_NOT_FOUND. */
export function projectOfCode(store: Store, fullCode: string): ProjectRecord {
  const cut = fullCode.lastIndexOf('_');
  const project = cut <= 0 ? undefined : store.project(fullCode.slice(0, cut));
  if (project === undefined) throw createKnownError('VERIFICATION_CODE_NOT_FOUND');
  return project;
}

/** An open purchase code and its project; VERIFICATION_CODE_NOT_FOUND or _EXPIRED as the service answers. */
export function findPurchaseCode(
  store: Store,
  fullCode: string,
  now: number,
): { project: ProjectRecord; code: PurchaseCodeRecord } {
  const project = projectOfCode(store, fullCode);
  const code = paymentsOf(project).purchase_codes.find((c) => c.full_code === fullCode);
  if (code === undefined) throw createKnownError('VERIFICATION_CODE_NOT_FOUND');
  if (code.expires_at_millis <= now) throw createKnownError('VERIFICATION_CODE_EXPIRED');
  return { project, code };
}

/** The customer a purchase code sells to. */
export const customerOfCode = (code: PurchaseCodeRecord): CustomerKey => ({
  customer_type: code.product.customerType,
  customer_id: code.customer_id,
});

/**
 * Completes a purchase code's purchase without payment (the project's payments must be in test mode), and uses the
 * code up. The customer owns the product at once, and its items count.
 */
export function completeTestModePurchase(
  store: Store,
  input: { fullCode: string; priceId: string; quantity: number },
  now: number,
): ProjectRecord {
  const { project, code } = findPurchaseCode(store, input.fullCode, now);
  const config = paymentsConfig(project);
  if (config.blockNewPurchases) throw paymentErrors.newPurchasesBlocked();
  if (!config.testMode) throw new StatusError(403, 'Test mode is not enabled for this project');
  grantProduct(
    project,
    {
      customer: customerOfCode(code),
      product: code.product,
      productId: code.product_id,
      priceId: input.priceId,
      quantity: input.quantity,
      source: 'TEST_MODE',
    },
    now,
  );
  const payments = paymentsOf(project);
  payments.purchase_codes = payments.purchase_codes.filter((c) => c !== code);
  return project;
}
