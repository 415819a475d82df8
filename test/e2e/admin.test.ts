import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { adminNav, adminSection } from './support/ids.js';
import { scenario } from './support/scenario.js';
import { byTestId, focus, personContext, T, until, waitForText, waitForVisible } from './support/ui.js';

const OWNER = { email: 'admin@authbroker.dev', password: 'admin-password' } as const;

/** The options of the project picker: id → name. */
async function projectOptions(page: Page): Promise<Record<string, string>> {
  return byTestId(page, T.adminProjectSelect).evaluate((select) =>
    Object.fromEntries(
      [...(select as HTMLSelectElement).options].map((option) => [option.value, option.textContent ?? '']),
    ),
  );
}

describe('project administration in the browser', () => {
  scenario(
    '17. a project owner creates a project, makes API keys for it, reads one key and renames it, then deletes the project',
    async (stage) => {
      const context = await personContext(stage);
      const page = await stage.openTab(context);
      const other = await stage.openTab(context, '/admin/settings');

      await focus(page);
      await byTestId(page, T.navAdmin).click();
      await byTestId(page, T.adminEmail).fill(OWNER.email);
      await byTestId(page, T.adminPassword).fill(OWNER.password);
      await byTestId(page, T.adminSignInSubmit).click();
      await waitForVisible(page, adminSection('settings'));
      // The other tab was on the admin sign-in page: it is signed in too.
      await waitForVisible(other, adminSection('settings'));

      // New project: the admin area switches to it.
      await byTestId(page, T.adminProjectCreate).click();
      await byTestId(page, T.adminProjectCreateName).fill('Side project');
      await byTestId(page, T.adminProjectCreateSubmit).click();
      const projectId = await until(
        'the new project selected',
        () => byTestId(page, T.adminProjectSelect).inputValue(),
        (id) => id !== stage.emulator.projects.demo.id,
      );
      await until(
        'its settings',
        () => byTestId(page, T.adminProjectName).inputValue(),
        (name) => name === 'Side project',
      );
      await until(
        'the other tab lists it',
        () => projectOptions(other),
        (options) => options[projectId] === 'Side project',
      );

      // API keys for it; one key read on its own, its description edited.
      await byTestId(page, adminNav('api-keys')).click();
      await byTestId(page, T.apiKeyDescription).fill('Staging server');
      await byTestId(page, T.apiKeyCreate).click();
      await waitForVisible(page, T.apiKeySecrets);
      await byTestId(page, T.apiKeySecretsDismiss).click();
      const row = page.locator(`[data-testid="${T.apiKeyRow}"]`).filter({ hasText: 'Staging server' });
      const keyId = await row.getAttribute('data-key-id');
      expect(keyId).toMatch(/^[0-9a-f-]{36}$/);
      await row.getByTestId(T.apiKeyDetails).click();
      const detail = page.locator(`[data-testid="${T.apiKeyDetail}"][data-key-id="${keyId}"]`);
      await detail.waitFor();
      expect(await detail.innerText()).toContain(keyId!);
      expect(await detail.getByTestId(T.apiKeyDetailDescription).inputValue()).toBe('Staging server');
      await detail.getByTestId(T.apiKeyDetailDescription).fill('Staging server (eu)');
      await detail.getByTestId(T.apiKeyDetailSave).click();
      const listed = page.locator(`[data-testid="${T.apiKeyRow}"][data-key-id="${keyId}"] b`).first();
      await until(
        'the list shows the new description',
        () => listed.innerText(),
        (text) => text === 'Staging server (eu)',
      );
      await waitForText(page, T.formSuccess, /^Saved/);

      // The demo's own project cannot be deleted here; the new one can.
      await byTestId(page, adminNav('settings')).click();
      await byTestId(page, T.adminProjectDeleteConfirm).waitFor({ state: 'detached' });
      await byTestId(page, T.adminProjectDelete).click();
      await byTestId(page, T.adminProjectDeleteConfirm).click();
      await until(
        'back on the demo project',
        () => byTestId(page, T.adminProjectSelect).inputValue(),
        (id) => id === stage.emulator.projects.demo.id,
      );
      await until(
        'the project gone from both tabs',
        async () => [await projectOptions(page), await projectOptions(other)],
        (lists) => lists.every((options) => !(projectId in options)),
      );
      expect(await byTestId(page, T.adminProjectDelete).isDisabled()).toBe(true);
    },
  );
});
