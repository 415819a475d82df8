import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { scenario } from './support/scenario.js';
import { byTestId, DEMO, focus, personContext, signInWithPasswordUi, T, until, waitForSignedIn } from './support/ui.js';

const creditsOf = (page: Page) => byTestId(page, T.shopCredits).getAttribute('data-quantity');
const productRow = (page: Page, productId: string) =>
  page.locator(`[data-testid="${T.shopProductRow}"][data-product="${productId}"]`);
const ownedRow = (page: Page, productId: string) =>
  page.locator(`[data-testid="${T.shopOwnedRow}"][data-product="${productId}"]`);

/** Buys a product of the shop: the emulator's checkout page, its test-mode button, and back to the shop. */
async function buy(page: Page, productId: string): Promise<void> {
  await focus(page);
  await productRow(page, productId).getByTestId(T.shopBuy).click();
  await page.waitForURL(/\/emulator\/purchase\//);
  await page.getByRole('button', { name: /Complete the test purchase/ }).click();
  await page.waitForURL(/\/shop$/);
}

describe('payments, through the demo', () => {
  scenario(
    "42a. the shop: a test-mode checkout completes on the emulator's page and the credits change in every tab",
    async (stage) => {
      const context = await personContext(stage);
      const page = await stage.openTab(context);
      await signInWithPasswordUi(page, DEMO);
      await waitForSignedIn(page, DEMO.email);
      const other = await stage.openTab(context, '/shop');
      await focus(page);
      await byTestId(page, T.navShop).click();
      for (const tab of [page, other])
        await until(
          'no credits yet',
          () => creditsOf(tab),
          (v) => v === '0',
        );

      // The pack: bought on the checkout page, back on the shop page, and in the other tab at once.
      await buy(page, 'credit_pack');
      for (const tab of [page, other])
        await until(
          '100 credits',
          () => creditsOf(tab),
          (v) => v === '100',
        );
      await expect(ownedRow(other, 'credit_pack').count()).resolves.toBe(1);

      // A plan: its monthly credits add up with the pack's; cancelled in the other tab, it stays to its period's end.
      await buy(page, 'starter');
      for (const tab of [page, other])
        await until(
          '300 credits',
          () => creditsOf(tab),
          (v) => v === '300',
        );
      await focus(other);
      await until(
        'the plan in the other tab',
        () => ownedRow(other, 'starter').count(),
        (n) => n === 1,
      );
      await ownedRow(other, 'starter').getByTestId(T.shopCancel).click();
      for (const tab of [page, other])
        await until(
          'no cancel button',
          () => ownedRow(tab, 'starter').getByTestId(T.shopCancel).count(),
          (n) => n === 0,
        );
      expect(await creditsOf(page)).toBe('300');
    },
  );
});
