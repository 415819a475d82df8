import { configOverrides, mergeOverride } from './configOverrides.js';
import type { ProjectRecord } from './model.js';
import { grantProduct } from './payments.js';
import { paymentsConfig } from './paymentsConfig.js';

/**
 * The service's dashboard project (`internal`) sells plans to the teams that own projects: a free plan, two paid
 * ones and extra seats, each including dashboard seats (`dashboard_admins`: one a member) and other limits. Every team
 * made there starts on the free plan, in test mode, so a new team has one seat: its creator's. Set in the project's
 * configuration, as the service's seed sets it; the quantities are the service's published plan limits.
 */
const included = (limits: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(limits).map(([item, quantity]) => [
      item,
      { quantity, repeat: 'never', expires: 'when-purchase-expires' },
    ]),
  );
const plan = (displayName: string, price: string, limits: Record<string, number>) => ({
  productLineId: 'plans',
  displayName,
  customerType: 'team',
  serverOnly: false,
  stackable: false,
  prices: { monthly: { USD: price, interval: [1, 'month'], serverOnly: false } },
  includedItems: included(limits),
});
const UNLIMITED = 1_000_000_000;
const limits = (seats: number, authUsers: number, emailsPerMonth: number, timeout: number, events: number) => ({
  dashboard_admins: seats,
  auth_users: authUsers,
  emails_per_month: emailsPerMonth,
  analytics_timeout_seconds: timeout,
  analytics_events: events,
});

export const DASHBOARD_PLANS = {
  payments: {
    productLines: { plans: { displayName: 'Plans', customerType: 'team' } },
    products: {
      free: {
        ...plan('Free', '0', limits(1, 10_000, 1_000, 10, 100_000)),
        prices: { 'free-monthly': { USD: '0', interval: [1, 'month'] } },
      },
      team: plan('Team', '49', limits(4, 50_000, 25_000, 60, 500_000)),
      growth: plan('Growth', '299', limits(UNLIMITED, UNLIMITED, 25_000, 300, UNLIMITED)),
      'extra-seats': {
        ...plan('Extra Seats', '29', {}),
        stackable: true,
        includedItems: included({ dashboard_admins: 1 }),
        isAddOnTo: { team: true, growth: true },
      },
    },
    items: {
      dashboard_admins: { displayName: 'Dashboard Admins', customerType: 'team' },
      auth_users: { displayName: 'Auth Users', customerType: 'team' },
      emails_per_month: { displayName: 'Emails per Month', customerType: 'team' },
      analytics_timeout_seconds: { displayName: 'Analytics Timeout (seconds)', customerType: 'team' },
      analytics_events: { displayName: 'Analytics Events', customerType: 'team' },
    },
  },
};

export function seedDashboardPlans(internal: ProjectRecord): void {
  mergeOverride(configOverrides(internal).environment, DASHBOARD_PLANS);
}

/** A team made in the dashboard project starts on its free plan (a test-mode subscription), as the service does. */
export function startOnFreePlan(p: ProjectRecord, teamId: string, now: number): void {
  if (p.id !== 'internal') return;
  const free = paymentsConfig(p).products.free;
  if (free === undefined || free.customerType !== 'team' || free.productLineId === undefined) return;
  grantProduct(
    p,
    {
      customer: { customer_type: 'team', customer_id: teamId },
      product: free,
      productId: 'free',
      priceId: null,
      quantity: 1,
      source: 'TEST_MODE',
    },
    now,
  );
}
