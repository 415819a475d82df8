/**
 * The emulator's payments where only the emulator can show them (the feature scenarios of test/support/features/
 * payments.ts cover what the service answers alike): the demo project's seeded shop, its own checkout page completing
 * a purchase in test mode and returning to the app, and grants renewing and ending as the emulator's clock moves.
 */
import { describe, expect, it } from 'vitest';
import { endpoints } from '../../protocol/index.js';
import { demoServerApp, devRequest, transportFor, uniqueEmail, useEmulator } from '../support/emulator.js';
import { keyHeaders, raw } from './httpSupport.js';

const emulator = useEmulator();
const DAY = 86_400_000;

async function signedUp() {
  const em = emulator();
  const tokens = await endpoints.signUpWithPassword(transportFor(em, 'client'), {
    email: uniqueEmail('payments'),
    password: 'a-long-Passw0rd-for-tests',
    verification_callback_url: 'http://localhost:5173/handler/email-verification',
  });
  return { userId: tokens.user_id, client: transportFor(em, 'client', { accessToken: tokens.access_token }) };
}

const credits = async (client: ReturnType<typeof transportFor<'client'>>, userId: string) =>
  (await endpoints.getItem(client, 'user', userId, 'credits')).quantity;

async function overrideConfig(config: Record<string, unknown>) {
  const em = emulator();
  const written = await raw(em, 'PATCH', '/api/latest/internal/config/override/environment', {
    headers: keyHeaders(em, 'admin'),
    json: { config_override_string: JSON.stringify(config) },
  });
  expect(written.status).toBe(200);
}

describe('emulator payments', () => {
  it("the demo project's shop: the checkout page completes a test-mode purchase and returns to the app", async () => {
    const em = emulator();
    const { userId, client } = await signedUp();
    expect(await credits(client, userId)).toBe(0);
    const url = await endpoints.createPurchaseUrl(client, {
      customer_type: 'user',
      customer_id: userId,
      product_id: 'credit_pack',
      return_url: 'http://localhost:5173/shop?bought=1',
    });
    expect(url.startsWith(`${em.url}/emulator/purchase/`)).toBe(true);

    const page = await fetch(url);
    const text = await page.text();
    expect(page.status).toBe(200);
    expect(text).toContain('100 credits');
    expect(text).toContain('Complete the test purchase');
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' http://localhost:5173");

    const bought = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: em.url },
      body: new URLSearchParams({ price_id: 'once', quantity: '2', return_url: 'http://localhost:5173/shop?bought=1' }),
    });
    expect([bought.status, bought.headers.get('location')]).toEqual([303, 'http://localhost:5173/shop?bought=1']);
    expect(await credits(client, userId)).toBe(200);
    const products = await endpoints.listCustomerProducts(client, 'user', userId);
    expect(products.items.map((p) => [p.id, p.quantity, p.type])).toEqual([['credit_pack', 2, 'one_time']]);

    // The code is used up: the page says so instead of selling again.
    const again = await fetch(url);
    expect(again.status).toBe(404);
    expect(await again.text()).toContain('cannot be used');
  });

  it('a plan renews its credits each month, and a cancelled one ends with its period', async () => {
    const em = emulator();
    const server = demoServerApp(em);
    const renewing = await signedUp();
    const cancelling = await signedUp();
    await server.grantProduct({ userId: renewing.userId }, { productId: 'starter' });
    await server.grantProduct({ userId: cancelling.userId }, { productId: 'starter' });
    expect(await credits(renewing.client, renewing.userId)).toBe(200);
    await endpoints.cancelSubscription(cancelling.client, 'user', cancelling.userId, 'starter');
    const cancelled = await endpoints.listCustomerProducts(cancelling.client, 'user', cancelling.userId);
    expect(cancelled.items.map((p) => [p.id, p.subscription])).toEqual([['starter', null]]);
    expect(await credits(cancelling.client, cancelling.userId)).toBe(200);

    await devRequest(em, 'POST', '/emulator/time', { advance_millis: 32 * DAY });
    // Access tokens have expired with the clock moved: a server reads on. "When repeated": each month's grant
    // replaces the last; the cancelled plan ended with its month, and its credits with it.
    expect((await server.getItem({ userId: renewing.userId }, 'credits')).quantity).toBe(200);
    expect((await server.listProducts({ userId: cancelling.userId })).items).toEqual([]);
    expect((await server.getItem({ userId: cancelling.userId }, 'credits')).quantity).toBe(0);
  });

  it('grants that never expire add up every interval; changes with an end stop counting then', async () => {
    const em = emulator();
    await overrideConfig({
      'payments.products.drip': {
        customerType: 'user',
        prices: { weekly: { USD: '1', interval: [1, 'week'] } },
        includedItems: { credits: { quantity: 10, repeat: [1, 'week'], expires: 'never' } },
      },
    });
    const { userId, client } = await signedUp();
    const server = demoServerApp(em);
    await server.grantProduct({ userId }, { productId: 'drip' });
    const { now_millis } = await devRequest<{ now_millis: number }>(em, 'GET', '/emulator/time');
    await server.updateItemQuantity({ userId }, 'credits', 5, { expiresAtMillis: now_millis + 3 * DAY });
    expect(await credits(client, userId)).toBe(15);
    await devRequest(em, 'POST', '/emulator/time', { advance_millis: 15 * DAY });
    // Three weekly grants; the change has ended.
    expect((await server.getItem({ userId }, 'credits')).quantity).toBe(30);
    expect(await server.tryDecreaseItemQuantity({ userId }, 'credits', 31)).toBe(false);
    expect(await server.tryDecreaseItemQuantity({ userId }, 'credits', 30)).toBe(true);
    expect((await server.getItem({ userId }, 'credits')).quantity).toBe(0);
  });

  it('without test mode no purchase completes: the emulator takes no payments', async () => {
    const em = emulator();
    const { userId, client } = await signedUp();
    const url = await endpoints.createPurchaseUrl(client, {
      customer_type: 'user',
      customer_id: userId,
      product_id: 'credit_pack',
    });
    const fullCode = decodeURIComponent(new URL(url).pathname.split('/').at(-1)!);
    await overrideConfig({ 'payments.testMode': false });
    try {
      const test = await raw(em, 'POST', '/api/latest/internal/payments/test-mode-purchase-session', {
        json: { full_code: fullCode, price_id: 'once' },
      });
      expect([test.status, test.text]).toEqual([403, 'Test mode is not enabled for this project']);
      const stripe = await raw(em, 'POST', '/api/latest/payments/purchases/purchase-session', {
        json: { full_code: fullCode, price_id: 'once' },
      });
      expect(stripe.status).toBe(400);
      expect(stripe.text).toContain('takes no payments');
      expect(await (await fetch(url)).text()).toContain('not in test mode');
    } finally {
      await overrideConfig({ 'payments.testMode': true });
    }
  });
});
