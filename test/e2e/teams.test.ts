import { describe, expect } from 'vitest';
import { scenario } from './support/scenario.js';
import {
  byTestId,
  DEMO,
  focus,
  personContext,
  serverApi,
  signInWithPasswordUi,
  T,
  until,
  userIdByEmail,
  waitForSignedIn,
  waitForText,
} from './support/ui.js';

/** Counts the documents a tab has loaded (a client-side navigation loads none). */
const COUNT_LOADS = () => sessionStorage.setItem('loads', String(Number(sessionStorage.getItem('loads') ?? '0') + 1));

describe('teams, through the demo', () => {
  scenario(
    "16a. a team's link opened signed out: to the sign-in page through the app's router (no page load), then back to the team",
    async (stage) => {
      const demoId = await userIdByEmail(stage, DEMO.email);
      const team = await serverApi<{ id: string }>(stage, 'POST', '/teams', {
        display_name: 'Linked team',
        creator_user_id: demoId,
      });
      const context = await personContext(stage);
      await context.addInitScript(COUNT_LOADS);
      const page = await stage.openTab(context, `/teams/${team.id}`);

      // useUser({ or: 'redirect' }) on the team page: the sign-in page, saying where to come back to.
      const signIn = await until(
        'the sign-in page',
        async () => new URL(page.url()),
        (url) => url.pathname === '/handler/sign-in',
      );
      expect(signIn.searchParams.get('after_auth_return_to')).toBe(`/teams/${team.id}`);
      await byTestId(page, T.signInEmail).waitFor();
      expect(await page.evaluate(() => sessionStorage.getItem('loads'))).toBe('1');

      await focus(page);
      await byTestId(page, T.signInEmail).fill(DEMO.email);
      await byTestId(page, T.signInPassword).fill(DEMO.password);
      await byTestId(page, T.signInSubmit).click();
      await waitForSignedIn(page, DEMO.email);
      await waitForText(page, T.teamName, 'Linked team');
      expect(new URL(page.url()).pathname).toBe(`/teams/${team.id}`);
      expect(await page.evaluate(() => sessionStorage.getItem('loads'))).toBe('1');
    },
  );

  scenario(
    '16b. your profile in a team: a name for this team only, shown in the members list and in another tab',
    async (stage) => {
      const context = await personContext(stage);
      const page = await stage.openTab(context);
      await signInWithPasswordUi(page, DEMO);
      await waitForSignedIn(page, DEMO.email);
      await byTestId(page, T.navTeams).click();
      await byTestId(page, T.teamCreateName).fill('Profile team');
      await byTestId(page, T.teamCreateSubmit).click();
      await waitForText(page, T.teamName, 'Profile team');
      const path = new URL(page.url()).pathname;
      const other = await stage.openTab(context, path);
      await waitForText(other, T.teamName, 'Profile team');

      await focus(page);
      await byTestId(page, T.teamProfileInput).fill('Captain Demo');
      await byTestId(page, T.teamProfileSave).click();
      await waitForText(page, T.formSuccess, /^Saved/);
      for (const tab of [page, other]) {
        await waitForText(tab, T.teamProfileName, 'Captain Demo');
        await until(
          'the member row with the team name',
          () => byTestId(tab, T.memberRow).first().innerText(),
          (text) => text.includes('Captain Demo'),
        );
      }
      // The account's own name is untouched: the profile belongs to this team.
      const { display_name } = await serverApi<{ display_name: string | null }>(
        stage,
        'GET',
        `/users/${await userIdByEmail(stage, DEMO.email)}`,
      );
      expect(display_name).not.toBe('Captain Demo');
    },
  );
});
