import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { endpoints } from '../../protocol/index.js';
import { transportFor } from '../support/emulator.js';
import { scenario } from './support/scenario.js';
import {
  byTestId,
  focus,
  openAccountSection,
  personContext,
  T,
  uniqueEmail,
  until,
  waitForAttribute,
  waitForSignedIn,
  waitForVisible,
} from './support/ui.js';

const PASSWORD = 'guest-upgrade-1';

const preferenceRow = (page: Page, category: string) =>
  page.locator(`[data-testid="${T.notificationPreferenceRow}"][data-category="${category}"]`);

describe('the features of today’s service, through the demo', () => {
  scenario(
    '31a. a guest: "Continue as a guest" signs in an anonymous user in every tab; its choices survive the sign-up that upgrades it',
    async (stage) => {
      const context = await personContext(stage);
      const page = await stage.openTab(context);
      const other = await stage.openTab(context);

      await byTestId(page, T.navSignIn).click();
      await byTestId(page, T.continueAsGuest).click();
      for (const tab of [page, other]) await waitForVisible(tab, T.navGuest);
      await focus(page);
      await byTestId(page, T.navHome).click();
      await waitForVisible(page, T.guestNotice);

      // A guest has an account: its notification choice is kept, and shown in the other tab at once.
      await openAccountSection(page, 'notifications');
      await preferenceRow(page, 'Marketing').getByTestId(T.notificationPreferenceToggle).click();
      await until(
        'Marketing off',
        () => preferenceRow(page, 'Marketing').getAttribute('data-enabled'),
        (v) => v === 'false',
      );
      await openAccountSection(other, 'notifications');
      await until(
        'Marketing off in the other tab',
        () => preferenceRow(other, 'Marketing').getAttribute('data-enabled'),
        (v) => v === 'false',
      );
      const guests = await endpoints.listUsers(transportFor(stage.emulator, 'server'), { include_anonymous: true });
      const guest = guests.items.find((u) => u.is_anonymous);
      expect(guest).toBeDefined();

      // "Create an account" from the home page: the sign-up says it keeps the guest, and does.
      await focus(page);
      await byTestId(page, T.navHome).click();
      await byTestId(page, T.guestUpgrade).click();
      await waitForVisible(page, T.signUpUpgradeNotice);
      const email = uniqueEmail('guest');
      await byTestId(page, T.signUpEmail).fill(email);
      await byTestId(page, T.signUpPassword).fill(PASSWORD);
      await byTestId(page, T.signUpPasswordConfirm).fill(PASSWORD);
      await byTestId(page, T.signUpSubmit).click();
      for (const tab of [page, other]) await waitForSignedIn(tab, email);
      expect(await byTestId(other, T.navGuest).count()).toBe(0);

      const upgraded = await endpoints.getUser(transportFor(stage.emulator, 'server'), guest!.id);
      expect(upgraded).toMatchObject({ id: guest!.id, primary_email: email, is_anonymous: false });
      await openAccountSection(other, 'notifications');
      await until(
        'Marketing still off after the upgrade',
        () => preferenceRow(other, 'Marketing').getAttribute('data-enabled'),
        (v) => v === 'false',
      );
    },
  );

  scenario(
    '31b. the account page shows project permissions granted by the server, and the linked accounts the app may use',
    async (stage) => {
      const em = stage.emulator;
      await endpoints.createProjectPermissionDefinition(transportFor(em, 'admin'), { id: 'read_reports' });
      await endpoints.createProjectPermissionDefinition(transportFor(em, 'admin'), {
        id: 'manage_reports',
        contained_permission_ids: ['read_reports'],
      });
      const email = uniqueEmail('features');
      const user = await endpoints.createUser(transportFor(em, 'server'), {
        primary_email: email,
        primary_email_auth_enabled: true,
        password: PASSWORD,
        oauth_providers: [{ id: 'github', account_id: 'gh-31b', email }],
      });
      const context = await personContext(stage);
      const page = await stage.openTab(context);
      await byTestId(page, T.navSignIn).click();
      await byTestId(page, T.signInEmail).fill(email);
      await byTestId(page, T.signInPassword).fill(PASSWORD);
      await byTestId(page, T.signInSubmit).click();
      await waitForSignedIn(page, email);

      await endpoints.grantProjectPermission(transportFor(em, 'server'), user.id, 'manage_reports');
      await openAccountSection(page, 'permissions');
      const listed = await until(
        'both permissions listed',
        async () =>
          page
            .locator(`[data-testid="${T.projectPermissionRow}"]`)
            .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-permission'))),
        (ids) => ids.length === 2,
      );
      expect(listed.sort()).toEqual(['manage_reports', 'read_reports']);

      await openAccountSection(page, 'connected-accounts');
      await waitForAttribute(page, T.connectedAccountUsable, 'data-account-id', 'gh-31b');
      expect(await byTestId(page, T.connectedAccountUsable).getAttribute('data-provider')).toBe('github');
    },
  );
});
