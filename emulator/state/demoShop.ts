import { configOverrides, mergeOverride } from './configOverrides.js';
import type { ProjectRecord } from './model.js';
import { paymentsOf } from './payments.js';

/**
 * The demo project's shop (`npm start`): credits a user holds, a pack of them bought once, and two monthly plans of
 * one product line that include credits each month, in test mode, with Stripe "connected", so that the demo's
 * purchase completes on the emulator's checkout page end to end. Set as the service sets a project's payments: in
 * its configuration (`payments.*` of the environment's overrides), which a project's owner may change.
 */
export const DEMO_SHOP = {
  payments: {
    testMode: true,
    items: { credits: { displayName: 'Credits', customerType: 'user' } },
    productLines: { plans: { displayName: 'Plans', customerType: 'user' } },
    products: {
      credit_pack: {
        displayName: '100 credits',
        customerType: 'user',
        stackable: true,
        prices: { once: { USD: '5' } },
        includedItems: { credits: { quantity: 100, repeat: 'never', expires: 'never' } },
      },
      starter: {
        displayName: 'Starter plan',
        customerType: 'user',
        productLineId: 'plans',
        prices: { monthly: { USD: '5', interval: [1, 'month'] } },
        includedItems: { credits: { quantity: 200, repeat: [1, 'month'], expires: 'when-repeated' } },
      },
      pro: {
        displayName: 'Pro plan',
        customerType: 'user',
        productLineId: 'plans',
        prices: { monthly: { USD: '20', interval: [1, 'month'] }, yearly: { USD: '200', interval: [1, 'year'] } },
        includedItems: { credits: { quantity: 1000, repeat: [1, 'month'], expires: 'when-repeated' } },
      },
    },
  },
};

export function seedDemoShop(p: ProjectRecord): void {
  mergeOverride(configOverrides(p).environment, DEMO_SHOP);
  paymentsOf(p).stripe_account_id = 'acct_emulator_demo';
}
