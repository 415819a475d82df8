import type { CustomerInvoice } from '../../protocol/resources/payments.js';
import { requireAccess } from '../http/access.js';
import type { Router } from '../http/router.js';
import { json } from '../http/types.js';
import { obj, validate, yup } from '../http/validate.js';
import { paymentsOf } from '../state/payments.js';
import { customerOf, customerParams, pageOf, requireClientAccess, requireCustomerExists } from './paymentChecks.js';

const FORBIDDEN = 'Clients can only manage their own billing.';

/**
 * A user's or team's billing as the service shows it to a client: whether it has a Stripe customer (one is made with
 * its first purchase URL) and its card on file (never, in the emulator, which takes no payment), and its subscription
 * invoices (Stripe's; a test-mode subscription has none).
 */
export function registerBillingRoutes(router: Router): void {
  router.add('GET', '/payments/billing/:customer_type/:customer_id', (req) => {
    const auth = requireAccess(req);
    const { params } = validate(req, { params: customerParams(['user', 'team']) });
    const customer = customerOf(params);
    requireClientAccess(auth, customer, FORBIDDEN);
    const payments = paymentsOf(auth.project);
    if (payments.stripe_account_id === null) return json({ has_customer: false, default_payment_method: null });
    requireCustomerExists(auth.project, customer);
    const key = `${customer.customer_type}:${customer.customer_id}`;
    return json({ has_customer: payments.stripe_customers.includes(key), default_payment_method: null });
  });

  router.add('GET', '/payments/invoices/:customer_type/:customer_id', (req) => {
    const auth = requireAccess(req);
    const { params, query } = validate(req, {
      params: customerParams(['user', 'team']),
      query: obj({ cursor: yup.string(), limit: yup.string() }),
    });
    requireClientAccess(auth, customerOf(params), FORBIDDEN);
    const invoices: Array<{ cursor: string; item: CustomerInvoice }> = [];
    return json(pageOf(invoices, query ?? {}));
  });
}
