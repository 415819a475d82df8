import * as api from '../../../../protocol/endpoints/index.js';
import type { Flow, FlowContext, Tokens } from '../flow.js';
import { CALLBACK, createFlowProject, NOBODY, PASSWORD } from './project.js';

const RETURN_URL = 'http://localhost:5173/shop?checkout=done';

/** The flow's shop, as a project's configuration sets it (`payments.*` of the environment's overrides). */
const SHOP = {
  'payments.items.credits': { displayName: 'Credits', customerType: 'user' },
  'payments.items.seats': { displayName: 'Seats', customerType: 'team' },
  'payments.productLines.plans': { displayName: 'Plans', customerType: 'user' },
  'payments.products.pack': {
    displayName: 'Credit pack',
    customerType: 'user',
    stackable: true,
    prices: { once: { USD: '5' } },
    includedItems: { credits: { quantity: 100 } },
  },
  'payments.products.starter': {
    displayName: 'Starter',
    customerType: 'user',
    productLineId: 'plans',
    prices: { monthly: { USD: '5', interval: [1, 'month'] } },
    includedItems: { credits: { quantity: 200, repeat: [1, 'month'], expires: 'when-repeated' } },
  },
  'payments.products.pro': {
    displayName: 'Pro',
    customerType: 'user',
    productLineId: 'plans',
    prices: { monthly: { USD: '20', interval: [1, 'month'] } },
    includedItems: {},
  },
  'payments.products.secret': {
    customerType: 'user',
    serverOnly: true,
    prices: { once: { USD: '1' } },
    includedItems: {},
  },
  'payments.products.team_plan': {
    displayName: 'Team plan',
    customerType: 'team',
    prices: { monthly: { USD: '50', interval: [1, 'month'] } },
    includedItems: { seats: { quantity: 5, expires: 'when-purchase-expires' } },
  },
};

/** The code of a purchase URL (its last path segment), when the step made one. */
const codeOf = (url: string | undefined) =>
  url === undefined ? undefined : decodeURIComponent(new URL(url).pathname.split('/').at(-1) ?? '');

/** A purchase URL for `productId`, completed in test mode as the service's checkout page does. */
async function buy(ctx: FlowContext, session: Tokens, userId: string, productId: string, priceId: string) {
  const me = ctx.client(session);
  const url = await ctx.step(`purchase URL for ${productId}`, () =>
    api.createPurchaseUrl(me, {
      customer_type: 'user',
      customer_id: userId,
      product_id: productId,
      return_url: RETURN_URL,
    }),
  );
  const code = codeOf(url);
  if (code === undefined) return;
  await ctx.step(`what the code of ${productId} is for`, () => api.validatePurchaseCode(me, code, RETURN_URL));
  await ctx.step(`complete ${productId} in test mode`, () =>
    api.completeTestModePurchase(me, { full_code: code, price_id: priceId }),
  );
}

/** A client's view of its own items and products, and what it may not see. */
async function clientReads(ctx: FlowContext, session: Tokens, userId: string): Promise<void> {
  const me = ctx.client(session);
  await ctx.step('an item', () => api.getItem(me, 'user', userId, 'credits'));
  await ctx.step('an unknown item', () => api.getItem(me, 'user', userId, 'no_such_item'));
  await ctx.step("a team's item as a user", () => api.getItem(me, 'user', userId, 'seats'));
  await ctx.step("another user's item", () => api.getItem(me, 'user', NOBODY, 'credits'));
  await ctx.step('a custom customer as a client', () => api.getItem(me, 'custom', 'org_42', 'credits'));
  await ctx.step('an item signed out', () => api.getItem(ctx.client(), 'user', userId, 'credits'));
  await ctx.step('products, none yet', () => api.listCustomerProducts(me, 'user', userId));
  await ctx.step('billing, none yet', () => api.getCustomerBilling(me, 'user', userId));
  await ctx.step('invoices', () => api.listCustomerInvoices(me, 'user', userId));
}

/** A server's reads, grants and changes, for a team and for a custom customer. */
async function serverCalls(ctx: FlowContext, userId: string): Promise<void> {
  const server = ctx.server();
  const team = await ctx.step('a team (server)', () =>
    api.createTeam(server, { display_name: 'Payments team', creator_user_id: userId }),
  );
  if (team) {
    await ctx.step('grant the team plan (server)', () =>
      api.grantProduct(server, 'team', team.id, { product_id: 'team_plan' }),
    );
    await ctx.step("the team's seats (server)", () => api.getItem(server, 'team', team.id, 'seats'));
    await ctx.step("the team's products (server)", () => api.listCustomerProducts(server, 'team', team.id));
  }
  await ctx.step('grant to the wrong customer type', () =>
    api.grantProduct(server, 'user', userId, { product_id: 'team_plan' }),
  );
  await ctx.step('grant two of a product that does not stack', () =>
    api.grantProduct(server, 'user', userId, { product_id: 'starter', quantity: 2 }),
  );
  await ctx.step('grant a server-only product', () =>
    api.grantProduct(server, 'user', userId, { product_id: 'secret' }),
  );
  await ctx.step('products with the server-only one (server)', () => api.listCustomerProducts(server, 'user', userId));
  await ctx.step('a custom customer (server)', () => api.getItem(server, 'custom', 'org_42', 'credits'));
  await ctx.step('an unknown user (server)', () => api.getItem(server, 'user', NOBODY, 'credits'));
  await ctx.step('change a quantity (server)', () =>
    api.updateItemQuantity(server, 'user', userId, 'credits', { delta: 5 }),
  );
}

export const paymentsFlow: Flow = {
  name: 'payments',
  covers:
    "a project's items and products from its configuration, purchase URLs and the test-mode purchase, what a customer owns and holds, subscriptions, billing, invoices, a server's grants, and the refusals",
  async run(ctx) {
    if (!(await createFlowProject(ctx))) return;
    await ctx.raw('configure the shop', {
      method: 'PATCH',
      path: '/internal/config/override/environment',
      headers: ctx.headers('admin'),
      body: { config_override_string: JSON.stringify(SHOP) },
    });
    const owner = await ctx.step('sign-up', () =>
      api.signUpWithPassword(ctx.client(), {
        email: ctx.email('payments'),
        password: PASSWORD,
        verification_callback_url: CALLBACK,
      }),
    );
    if (!owner) return;
    const userId = owner.user_id;
    const me = ctx.client(owner);
    await ctx.step('a purchase URL before Stripe is connected', () =>
      api.createPurchaseUrl(me, { customer_type: 'user', customer_id: userId, product_id: 'pack' }),
    );
    await ctx.raw('connect Stripe', {
      method: 'POST',
      path: '/internal/payments/setup',
      headers: ctx.headers('admin'),
      body: {},
    });
    await clientReads(ctx, owner, userId);

    await ctx.step('a purchase URL to an untrusted page', () =>
      api.createPurchaseUrl(me, {
        customer_type: 'user',
        customer_id: userId,
        product_id: 'pack',
        return_url: 'https://elsewhere.example/shop',
      }),
    );
    await ctx.step('a purchase URL for a server-only product', () =>
      api.createPurchaseUrl(me, { customer_type: 'user', customer_id: userId, product_id: 'secret' }),
    );
    await ctx.step('a purchase URL for an item', () =>
      api.createPurchaseUrl(me, { customer_type: 'user', customer_id: userId, product_id: 'credits' }),
    );
    await buy(ctx, owner, userId, 'pack', 'once');
    await ctx.step('the item after the purchase', () => api.getItem(me, 'user', userId, 'credits'));
    await buy(ctx, owner, userId, 'starter', 'monthly');
    await ctx.step('products after the purchases', () => api.listCustomerProducts(me, 'user', userId));
    await ctx.step('one product a page', () => api.listCustomerProducts(me, 'user', userId, { limit: 1 }));
    await ctx.step('a purchase URL for a plan owned', () =>
      api.createPurchaseUrl(me, { customer_type: 'user', customer_id: userId, product_id: 'starter' }),
    );
    await ctx.step('switch a test-mode plan', () =>
      api.switchSubscription(me, 'user', userId, { from_product_id: 'starter', to_product_id: 'pro' }),
    );
    await ctx.step('cancel the plan', () => api.cancelSubscription(me, 'user', userId, 'starter'));
    await ctx.step('products after cancelling', () => api.listCustomerProducts(me, 'user', userId));
    await ctx.step('cancel it again', () => api.cancelSubscription(me, 'user', userId, 'starter'));
    await ctx.step('cancel a product bought once', () => api.cancelSubscription(me, 'user', userId, 'pack'));
    await ctx.step('cancel an unknown product', () => api.cancelSubscription(me, 'user', userId, 'no_such_product'));
    await ctx.step('billing after a purchase', () => api.getCustomerBilling(me, 'user', userId));
    await serverCalls(ctx, userId);
  },
};
