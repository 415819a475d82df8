import { describe, expect } from 'vitest';
import { endpoints } from '../../protocol/index.js';
import { startCliLogin } from '../../protocol/server.js';
import { transportFor } from '../support/emulator.js';
import { scenario } from './support/scenario.js';
import { byTestId, personContext, T, uniqueEmail, waitForAttribute } from './support/ui.js';

const PASSWORD = 'cli-login-1';

describe('signing a CLI in with the browser, through the demo', () => {
  scenario(
    '42a. the CLI shows a link; signed out, "Authorize" goes to sign in and back, and the CLI gets the session',
    async (stage) => {
      const em = stage.emulator;
      const email = uniqueEmail('cli');
      const user = await endpoints.createUser(transportFor(em, 'server'), {
        primary_email: email,
        primary_email_auth_enabled: true,
        password: PASSWORD,
      });
      const demo = em.projects.demo;
      const login = await startCliLogin({
        baseUrl: em.url,
        projectId: demo.id,
        publishableClientKey: demo.publishableClientKey,
        appUrl: stage.demo.url,
        pollIntervalMillis: 250,
      });
      const link = new URL(login.url);
      expect(link.origin).toBe(new URL(stage.demo.url).origin);

      const page = await stage.openTab(await personContext(stage), `${link.pathname}${link.search}`);
      await waitForAttribute(page, T.cliConfirmStatus, 'data-state', 'ready');
      await byTestId(page, T.cliConfirmAuthorize).click();
      // The click went to sign in (with the way back); signing in brings the page back, which finishes.
      await byTestId(page, T.signInEmail).fill(email);
      await byTestId(page, T.signInPassword).fill(PASSWORD);
      await byTestId(page, T.signInSubmit).click();
      await waitForAttribute(page, T.cliConfirmStatus, 'data-state', 'confirmed');

      const session = await login.waitForSession();
      expect(session.user).toMatchObject({ id: user.id, primaryEmail: email });
      // What the page saw of the session: nothing. Its storage and its DOM hold no refresh token.
      const seen = await page.evaluate(() => JSON.stringify({ ...localStorage }) + document.documentElement.outerHTML);
      expect(seen).not.toContain(session.refreshToken);
    },
  );
});
