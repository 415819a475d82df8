/**
 * Payments, as scenarios over a target (see ../scenarioKit.ts): a project's items and products set in its
 * configuration, a purchase completed in the service's test mode (the purchase URL, what its code is for, and the
 * test-mode purchase the service's checkout page makes), what a customer then owns and holds, subscriptions,
 * who may see whose, a server's grants and changes, and the broker sharing one customer's items and products with
 * every tab. The real backend needs its Stripe stand-in for purchase URLs (test/real/support/stripeStandIn.ts).
 */
import { expect } from 'vitest';
import * as endpoints from '../../../protocol/endpoints/index.js';
import type { CustomerPageModel, CustomerProductModel, ItemModel } from '../../../protocol/paymentModels.js';
import type { CustomerType } from '../../../protocol/resources/payments.js';
import { createRefreshingTokenSource } from '../../../protocol/tokenSource.js';
import type { Transport } from '../../../protocol/transport.js';
import {
  brokerFor,
  clientTransport,
  failureOf,
  PASSWORD,
  rawCall,
  serverApp,
  serviceCodeOf,
  uniqueEmail,
  uniqueId,
} from '../scenarioKit.js';
import type { ServiceTarget } from '../serviceTarget.js';

const RETURN_URL = 'http://localhost:5173/shop?checkout=done';

/** A shop of the scenario's own (ids no other scenario uses), set in the project's configuration. */
async function shop(target: ServiceTarget) {
  const s = uniqueId().replace(/[^a-z0-9_]/gi, '_');
  const ids = {
    credits: `credits_${s}`,
    seats: `seats_${s}`,
    plans: `plans_${s}`,
    pack: `pack_${s}`,
    starter: `starter_${s}`,
    pro: `pro_${s}`,
    secret: `secret_${s}`,
    teamPlan: `team_plan_${s}`,
  };
  const config = {
    [`payments.items.${ids.credits}`]: { displayName: 'Credits', customerType: 'user' },
    [`payments.items.${ids.seats}`]: { displayName: 'Seats', customerType: 'team' },
    [`payments.productLines.${ids.plans}`]: { displayName: 'Plans', customerType: 'user' },
    [`payments.products.${ids.pack}`]: {
      displayName: '100 credits',
      customerType: 'user',
      stackable: true,
      prices: { once: { USD: '5' } },
      includedItems: { [ids.credits]: { quantity: 100 } },
    },
    [`payments.products.${ids.starter}`]: {
      displayName: 'Starter',
      customerType: 'user',
      productLineId: ids.plans,
      prices: { monthly: { USD: '5', interval: [1, 'month'] } },
      includedItems: { [ids.credits]: { quantity: 200, repeat: [1, 'month'], expires: 'when-repeated' } },
    },
    [`payments.products.${ids.pro}`]: {
      displayName: 'Pro',
      customerType: 'user',
      productLineId: ids.plans,
      prices: { monthly: { USD: '20', interval: [1, 'month'] } },
      includedItems: { [ids.credits]: { quantity: 1000, repeat: [1, 'month'], expires: 'when-repeated' } },
    },
    [`payments.products.${ids.secret}`]: {
      displayName: 'Internal',
      customerType: 'user',
      serverOnly: true,
      prices: { once: { USD: '1' } },
      includedItems: {},
    },
    [`payments.products.${ids.teamPlan}`]: {
      displayName: 'Team plan',
      customerType: 'team',
      prices: { monthly: { USD: '50', interval: [1, 'month'] } },
      includedItems: { [ids.seats]: { quantity: 5, expires: 'when-purchase-expires' } },
    },
  };
  const written = await rawCall(target, 'PATCH', '/internal/config/override/environment', {
    access: 'admin',
    body: { config_override_string: JSON.stringify(config) },
  });
  expect([written.status, written.body]).toEqual([200, { success: true }]);
  // Stripe "connected" (the service keeps its bookkeeping there even in test mode): purchase URLs need it.
  const setup = await rawCall(target, 'POST', '/internal/payments/setup', { access: 'admin', body: {} });
  expect(setup.status).toBe(200);
  return ids;
}

/** A signed-up user with its own client transport. */
async function shopper(target: ServiceTarget): Promise<{ userId: string; client: Transport<'client'> }> {
  const email = uniqueEmail('shopper');
  const tokens = await endpoints.signUpWithPassword(clientTransport(target), {
    email,
    password: PASSWORD,
    verification_callback_url: 'http://localhost:5173/handler/email-verification',
  });
  // A renewing session: the real backend's development tokens last a minute, and its first calls of a route compile it.
  const userTokens = createRefreshingTokenSource({
    baseUrl: target.baseUrl,
    projectId: target.projectId,
    publishableClientKey: target.publishableClientKey,
    refreshToken: tokens.refresh_token,
    accessToken: tokens.access_token,
  });
  return { userId: tokens.user_id, client: clientTransport(target).withUserTokens(userTokens) };
}

/** The access token a client transport sends (for hand-made calls). */
async function tokenOf(client: Transport): Promise<string> {
  const token = await client.options.userTokens?.getAccessToken();
  if (token === undefined || token === null) throw new Error('This transport has no user token.');
  return token;
}

const quantityOf = async (client: Transport, type: CustomerType, id: string, itemId: string) =>
  (await endpoints.getItem(client, type, id, itemId)).quantity;

/** The code of a purchase URL: its last path segment (the service's dashboard page, or the emulator's own). */
function codeOf(url: string): string {
  const { pathname } = new URL(url);
  expect(pathname).toMatch(/\/purchase\/[^/]+$/);
  return decodeURIComponent(pathname.split('/').at(-1)!);
}

/** Buys a product as the customer's checkout page does in test mode: the purchase URL, its details, the purchase. */
async function buyInTestMode(
  client: Transport,
  userId: string,
  productId: string,
  priceId: string,
  quantity = 1,
): Promise<void> {
  const url = await endpoints.createPurchaseUrl(client, {
    customer_type: 'user',
    customer_id: userId,
    product_id: productId,
    return_url: RETURN_URL,
  });
  await endpoints.completeTestModePurchase(client, { full_code: codeOf(url), price_id: priceId, quantity });
}

/** A purchase URL's checkout completes in test mode, and what it sold counts at once. */
export async function aCheckoutCompletesInTestModeAndItsItemsCount(target: ServiceTarget): Promise<void> {
  const ids = await shop(target);
  const { userId, client } = await shopper(target);
  expect(await endpoints.getItem(client, 'user', userId, ids.credits)).toEqual({
    id: ids.credits,
    display_name: 'Credits',
    quantity: 0,
  });
  const url = await endpoints.createPurchaseUrl(client, {
    customer_type: 'user',
    customer_id: userId,
    product_id: ids.pack,
    return_url: RETURN_URL,
  });
  expect(new URL(url).searchParams.get('return_url')).toBe(RETURN_URL);
  const code = codeOf(url);
  // `<tenancy id>_<code>`: the service's tenancy (its project's branch) is named by a UUID of its own.
  expect(code).toMatch(/^[0-9a-f-]{36}_[0-9a-z]+$/);

  const details = await endpoints.validatePurchaseCode(client, code, RETURN_URL);
  expect(details).toMatchObject({
    product: { display_name: '100 credits', customer_type: 'user', stackable: true, prices: { once: { USD: '5' } } },
    project_id: target.projectId,
    already_bought_non_stackable: false,
    conflicting_products: [],
    test_mode: true,
  });

  const wrongPrice = await rawCall(target, 'POST', '/internal/payments/test-mode-purchase-session', {
    body: { full_code: code, price_id: 'no_such_price', quantity: 1 },
  });
  expect([wrongPrice.status, wrongPrice.body]).toEqual([
    400,
    'Price not found on product associated with this purchase code',
  ]);
  await endpoints.completeTestModePurchase(client, { full_code: code, price_id: 'once', quantity: 2 });
  expect(await quantityOf(client, 'user', userId, ids.credits)).toBe(200);
  const owned = await endpoints.listCustomerProducts(client, 'user', userId);
  expect(owned.items.map((p) => [p.id, p.quantity, p.type, p.subscription])).toEqual([[ids.pack, 2, 'one_time', null]]);

  // The code is used up; the buyer has a (test) Stripe customer now, with no card on file.
  const again = await rawCall(target, 'POST', '/internal/payments/test-mode-purchase-session', {
    body: { full_code: code, price_id: 'once', quantity: 1 },
  });
  expect([again.status, again.code]).toEqual([404, 'VERIFICATION_CODE_NOT_FOUND']);
  expect(await endpoints.getCustomerBilling(client, 'user', userId)).toEqual({
    has_customer: true,
    default_payment_method: null,
  });
  expect(await endpoints.listCustomerInvoices(client, 'user', userId)).toEqual({
    items: [],
    is_paginated: true,
    pagination: { next_cursor: null },
  });
}

/** A subscription: owned with its period, its monthly credits, the plans it may switch to, cancelled to its end. */
export async function aSubscriptionIsOwnedUntilItsPeriodEnds(target: ServiceTarget): Promise<void> {
  const ids = await shop(target);
  const { userId, client } = await shopper(target);
  await buyInTestMode(client, userId, ids.starter, 'monthly');
  expect(await quantityOf(client, 'user', userId, ids.credits)).toBe(200);
  const [owned] = (await endpoints.listCustomerProducts(client, 'user', userId)).items;
  expect(owned).toMatchObject({ id: ids.starter, quantity: 1, type: 'subscription' });
  expect(owned!.subscription).toMatchObject({ cancel_at_period_end: false, is_cancelable: true });
  const periodEnd = Date.parse(owned!.subscription!.current_period_end!);
  expect(periodEnd - Date.now()).toBeGreaterThan(27 * 86_400_000);
  expect(owned!.switch_options?.map((option) => option.product_id)).toEqual([ids.pro]);

  // Not again while it is owned; and a test-mode subscription cannot switch (Stripe holds none to move).
  const twice = await failureOf(
    endpoints.createPurchaseUrl(client, { customer_type: 'user', customer_id: userId, product_id: ids.starter }),
  );
  expect(serviceCodeOf(twice)).toBe('PRODUCT_ALREADY_GRANTED');
  const switched = await rawCall(target, 'POST', `/payments/products/user/${userId}/switch`, {
    accessToken: await tokenOf(client),
    body: { from_product_id: ids.starter, to_product_id: ids.pro },
  });
  expect([switched.status, switched.body]).toEqual([400, 'This subscription cannot be switched.']);

  await endpoints.cancelSubscription(client, 'user', userId, ids.starter);
  const [cancelled] = (await endpoints.listCustomerProducts(client, 'user', userId)).items;
  expect(cancelled).toMatchObject({ id: ids.starter, quantity: 1, type: 'one_time', subscription: null });
  expect(await quantityOf(client, 'user', userId, ids.credits)).toBe(200);
  const cancelAgain = await failureOf(endpoints.cancelSubscription(client, 'user', userId, ids.starter));
  expect((cancelAgain as { status?: number }).status).toBe(400);
}

/** A client sees its own user, and teams it administers; never another user, a custom customer, or a server's product. */
export async function clientsReachOnlyTheirOwnCustomers(target: ServiceTarget): Promise<void> {
  const ids = await shop(target);
  const { userId, client } = await shopper(target);
  const other = await shopper(target);
  // Each call with a fresh token: on the real backend a scenario may outlast one (a minute in development).
  const get = async (path: string, as = client) => rawCall(target, 'GET', path, { accessToken: await tokenOf(as) });

  const otherUser = await get(`/payments/items/user/${other.userId}/${ids.credits}`);
  expect([otherUser.status, otherUser.body]).toEqual([403, 'Clients can only access their own user or team items.']);
  const custom = await get(`/payments/items/custom/shop-42/${ids.credits}`);
  expect(custom.status).toBe(403);
  const signedOut = await rawCall(target, 'GET', `/payments/items/user/${userId}/${ids.credits}`);
  expect([signedOut.status, signedOut.code]).toEqual([401, 'USER_AUTHENTICATION_REQUIRED']);
  const unknown = await get(`/payments/items/user/${userId}/no_such_item`);
  expect([unknown.status, unknown.code]).toEqual([404, 'ITEM_NOT_FOUND']);
  const wrongType = await get(`/payments/items/user/${userId}/${ids.seats}`);
  expect([wrongType.status, wrongType.code]).toEqual([400, 'ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH']);
  const othersProducts = await get(`/payments/products/user/${other.userId}`);
  expect([othersProducts.status, othersProducts.body]).toEqual([
    403,
    'Clients can only access their own user or team products.',
  ]);

  const server = serverApp(target);
  const team = await server.createTeam({ displayName: 'Shop team', creatorUserId: userId });
  await server.addTeamMember(team.id, other.userId);
  expect(await quantityOf(client, 'team', team.id, ids.seats)).toBe(0);
  const member = await get(`/payments/items/team/${team.id}/${ids.seats}`, other.client);
  expect([member.status, member.code]).toEqual([401, 'TEAM_PERMISSION_REQUIRED']);

  const hidden = await failureOf(
    endpoints.createPurchaseUrl(client, { customer_type: 'user', customer_id: userId, product_id: ids.secret }),
  );
  expect(serviceCodeOf(hidden)).toBe('PRODUCT_DOES_NOT_EXIST');
  const untrusted = await failureOf(
    endpoints.createPurchaseUrl(client, {
      customer_type: 'user',
      customer_id: userId,
      product_id: ids.pack,
      return_url: 'https://elsewhere.example/shop',
    }),
  );
  expect(serviceCodeOf(untrusted)).toBe('REDIRECT_URL_NOT_WHITELISTED');
  const inline = await rawCall(target, 'POST', '/payments/purchases/create-purchase-url', {
    accessToken: await tokenOf(client),
    body: {
      customer_type: 'user',
      customer_id: userId,
      product_inline: { display_name: 'X', customer_type: 'user', prices: { a: { USD: '1' } }, included_items: {} },
    },
  });
  expect(inline.status).toBe(400);
}

/**
 * A server reads and grants for any customer (teams, ids of the app's own), sees server-only products, and changes an
 * item's quantity (the backend of 2026-04 fails that last call with a 500: a defect the emulator does not copy).
 */
export async function aServerGrantsAndChangesQuantities(target: ServiceTarget): Promise<void> {
  const ids = await shop(target);
  const { userId } = await shopper(target);
  const server = serverApp(target);
  const team = await server.createTeam({ displayName: 'Granted team', creatorUserId: userId });
  expect(await server.grantProduct({ teamId: team.id }, { productId: ids.teamPlan })).toEqual({
    subscriptionId: expect.any(String),
  });
  expect(await server.getItem({ teamId: team.id }, ids.seats)).toEqual({
    id: ids.seats,
    displayName: 'Seats',
    quantity: 5,
    nonNegativeQuantity: 5,
  });
  expect(await server.grantProduct({ userId }, { productId: ids.secret })).toEqual({ subscriptionId: null });
  const listed = await server.listProducts({ userId });
  expect(listed.items.map((p) => [p.id, p.isServerOnly])).toEqual([[ids.secret, true]]);
  const mismatch = await failureOf(server.grantProduct({ teamId: team.id }, { productId: ids.pack }));
  expect(serviceCodeOf(mismatch)).toBe('PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH');
  const notStackable = await failureOf(server.grantProduct({ userId }, { productId: ids.starter }, 2));
  expect((notStackable as { status?: number }).status).toBe(400);

  const change = server.updateItemQuantity({ userId }, ids.credits, 5);
  if (target.kind === 'real') {
    expect((await failureOf(change)).message).toContain('Cannot use $replica inside of a transaction');
    return;
  }
  await change;
  expect((await server.getItem({ userId }, ids.credits)).quantity).toBe(5);
  expect(await server.tryDecreaseItemQuantity({ userId }, ids.credits, 6)).toBe(false);
  expect(await server.tryDecreaseItemQuantity({ userId }, ids.credits, 5)).toBe(true);
  await server.decreaseItemQuantity({ userId }, ids.credits, 2);
  expect((await server.getItem({ userId }, ids.credits)).nonNegativeQuantity).toBe(0);
  expect((await server.getItem({ userId }, ids.credits)).quantity).toBe(-2);
}

type ProductsPage = CustomerPageModel<CustomerProductModel>;

/**
 * Through the broker: three tabs watch one customer's item and products; a purchase completed elsewhere reaches all of
 * them once one says so (`refreshPayments`), and a cancellation made in one reaches the others by itself.
 */
export async function everyTabSeesAPurchaseAndACancellation(target: ServiceTarget): Promise<void> {
  const ids = await shop(target);
  const server = serverApp(target);
  const email = uniqueEmail('broker-shop');
  const user = await server.createUser({ primaryEmail: email, password: PASSWORD, primaryEmailAuthEnabled: true });
  const { tabs, close } = await brokerFor(target, 3);
  try {
    const [first] = tabs as [(typeof tabs)[0]];
    await first.api.signInWithPassword({ email, password: PASSWORD });
    const customer = { customerType: 'user', customerId: user.id } as const;
    for (const tab of tabs) {
      await tab.subscribe('credits', { kind: 'item', ...customer, itemId: ids.credits });
      await tab.subscribe('products', { kind: 'products', ...customer });
    }
    for (const tab of tabs) {
      await tab.waitFor('credits', (s) => (s.data as ItemModel | null)?.quantity === 0, 30_000);
      await tab.waitFor('products', (s) => (s.data as ProductsPage | undefined)?.items.length === 0, 30_000);
    }

    // The checkout happens outside the broker (the service's page); the tab it returns to says so.
    const url = await first.api.createCheckoutUrl(
      { userId: user.id },
      { productId: ids.starter, returnUrl: RETURN_URL },
    );
    await endpoints.completeTestModePurchase(clientTransport(target), {
      full_code: codeOf(url),
      price_id: 'monthly',
    });
    await first.api.refreshPayments({ userId: user.id });
    for (const tab of tabs) {
      const credits = await tab.waitFor('credits', (s) => (s.data as ItemModel | null)?.quantity === 200, 30_000);
      expect(credits.data).toEqual({
        id: ids.credits,
        displayName: 'Credits',
        quantity: 200,
        nonNegativeQuantity: 200,
      });
      const products = await tab.waitFor(
        'products',
        (s) => (s.data as ProductsPage | undefined)?.items.some((p) => p.subscription !== null) === true,
        30_000,
      );
      expect((products.data as ProductsPage).items.map((p) => [p.id, p.switchOptions.map((o) => o.productId)])).toEqual(
        [[ids.starter, [ids.pro]]],
      );
    }

    await tabs[1]!.api.cancelSubscription({ userId: user.id }, { productId: ids.starter });
    for (const tab of tabs)
      await tab.waitFor(
        'products',
        (s) =>
          (s.data as ProductsPage | undefined)?.items.some((p) => p.id === ids.starter && p.subscription === null) ===
          true,
        30_000,
      );
    expect(await first.api.read({ kind: 'item', ...customer, itemId: ids.credits })).toMatchObject({ quantity: 200 });
  } finally {
    close();
  }
}
