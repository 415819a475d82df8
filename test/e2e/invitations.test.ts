import { describe, expect } from 'vitest';
import { scenario } from './support/scenario.js';
import {
  byTestId,
  DEMO,
  focus,
  latestMail,
  personContext,
  signInWithPasswordUi,
  signUpUi,
  T,
  uniqueEmail,
  until,
  userIdByEmail,
  waitForAttribute,
  waitForSignedIn,
  waitForText,
} from './support/ui.js';

describe('team invitations between two people', () => {
  scenario(
    '12. A creates a team and invites B; B signs up, opens the e-mailed link, sees the team, accepts; A sees B join without reloading',
    async (stage) => {
      // Two people: two browser contexts, which share nothing.
      const contextA = await personContext(stage);
      const contextB = await personContext(stage);
      const a = await stage.openTab(contextA);
      const b = await stage.openTab(contextB);
      const teamName = `Design team ${Date.now().toString(36)}`;
      const emailB = uniqueEmail('teammate');

      // A signs in and creates the team: the app goes to its page.
      await signInWithPasswordUi(a, DEMO);
      await waitForSignedIn(a, DEMO.email);
      await focus(a);
      await byTestId(a, T.navTeams).click();
      await byTestId(a, T.teamCreateName).fill(teamName);
      await byTestId(a, T.teamCreateSubmit).click();
      await waitForText(a, T.teamName, teamName);
      const teamId = /^\/teams\/([^/]+)$/.exec(new URL(a.url()).pathname)?.[1];
      expect(teamId).toBeDefined();
      await until(
        'A alone in the team',
        () => byTestId(a, T.memberRow).count(),
        (n) => n === 1,
      );
      const idA = await userIdByEmail(stage, DEMO.email);
      expect(await byTestId(a, T.memberRow).getAttribute('data-user-id')).toBe(idA);

      // A invites B by e-mail.
      await byTestId(a, T.inviteEmail).fill(emailB);
      await byTestId(a, T.inviteSubmit).click();
      await waitForText(a, T.formSuccess, new RegExp(`Invitation sent to ${emailB.replace(/[.+]/g, '\\$&')}`));
      const invitationRow = a.locator(`[data-testid="${T.invitationRow}"][data-email="${emailB}"]`);
      await invitationRow.waitFor({ state: 'visible' });
      const navigationsA = await a.evaluate(() => performance.getEntriesByType('navigation').length);

      // B creates an account in the UI (nobody is signed in in B's browser).
      await signUpUi(b, { email: emailB, password: 'teammate-password' });
      const idB = await userIdByEmail(stage, emailB);

      // The invitation arrives in B's mailbox; B opens its link.
      const mail = await latestMail(stage, emailB, 'team_invitation');
      expect(mail.subject).toContain(teamName);
      const link = new URL(mail.link!);
      expect(link.origin).toBe(stage.demo.url);
      expect(link.pathname).toBe('/handler/team-invitation');
      await focus(b);
      await b.goto(link.href);
      await waitForAttribute(b, T.teamInvitationStatus, 'data-state', 'ready');
      await waitForText(b, T.teamInvitationTeamName, teamName);
      expect(await byTestId(b, T.teamInvitationStatus).innerText()).toContain(emailB);
      await byTestId(b, T.teamInvitationAccept).click();
      await waitForAttribute(b, T.teamInvitationStatus, 'data-state', 'accepted');
      await waitForText(b, T.teamInvitationTeamName, teamName);

      // B's teams now include it, and B can open it.
      await b.getByRole('link', { name: 'Open the team' }).click();
      await waitForText(b, T.teamName, teamName);
      expect(new URL(b.url()).pathname).toBe(`/teams/${teamId}`);
      await until(
        "both members on B's page",
        () => byTestId(b, T.memberRow).count(),
        (n) => n === 2,
      );

      // A's page, untouched all along, shows B among the members and no longer lists the invitation.
      await until(
        "B among the members on A's team page",
        async () =>
          (
            await byTestId(a, T.memberRow).evaluateAll((rows) => rows.map((row) => row.getAttribute('data-user-id')))
          ).sort(),
        (ids) => JSON.stringify(ids) === JSON.stringify([idA, idB].sort()),
      );
      await until(
        "the invitation to leave A's list",
        () => invitationRow.count(),
        (n) => n === 0,
      );
      expect(await a.evaluate(() => performance.getEntriesByType('navigation').length)).toBe(navigationsA);
      expect(new URL(a.url()).pathname).toBe(`/teams/${teamId}`);
      // Each person still sees themself signed in, in their own browser.
      await waitForSignedIn(a, DEMO.email);
      await waitForSignedIn(b, emailB);
    },
  );
});
