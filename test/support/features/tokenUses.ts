/**
 * What a tab reads from the broker's access token without asking the service, as scenarios over a
 * target (see ../scenarioKit.ts): the partial user (`getPartialUser`) and the header for the app's own
 * server (`getAuthHeaders`), which authbroker/server's `verifyRequest` checks.
 */
import { expect } from 'vitest';
import { brokerFor, PASSWORD, serverApp, uniqueEmail } from '../scenarioKit.js';
import type { ServiceTarget } from '../serviceTarget.js';

/** A broker whose every request to the service is counted. */
async function countedBroker(target: ServiceTarget, tabs: number) {
  const requests: string[] = [];
  const counting: typeof fetch = (input, init) => {
    requests.push(`${init?.method ?? 'GET'} ${new URL(String(input instanceof Request ? input.url : input)).pathname}`);
    return fetch(input, init);
  };
  return { requests, browser: await brokerFor(target, tabs, { fetch: counting }) };
}

async function signedUpUser(target: ServiceTarget, displayName: string): Promise<{ id: string; email: string }> {
  const email = uniqueEmail('partial');
  const user = await serverApp(target).createUser({
    primaryEmail: email,
    password: PASSWORD,
    primaryEmailAuthEnabled: true,
    primaryEmailVerified: true,
    displayName,
  });
  return { id: user.id, email };
}

/**
 * The partial user is the token's claims in the User model's names, the same in every tab, and
 * reading it asks the service nothing.
 */
export async function thePartialUserIsReadFromTheTokenWithoutARequest(target: ServiceTarget): Promise<void> {
  const user = await signedUpUser(target, 'Partial Person');
  const { requests, browser } = await countedBroker(target, 3);
  try {
    const first = browser.tabs[0];
    expect(await first!.api.getPartialUser()).toBeNull();
    await first!.api.signInWithPassword({ email: user.email, password: PASSWORD });
    const before = requests.length;
    const read = await Promise.all(browser.tabs.map((tab) => tab.api.getPartialUser()));
    expect(requests.slice(before)).toEqual([]);
    expect(read[0]).toEqual({
      id: user.id,
      displayName: 'Partial Person',
      primaryEmail: user.email,
      primaryEmailVerified: true,
      selectedTeamId: expect.toBeOneOf([null, expect.any(String)]),
      signedUpAtMillis: expect.any(Number),
      isAnonymous: false,
      isRestricted: false,
      restrictedReason: null,
      requiresTotpMfa: false,
    });
    for (const other of read.slice(1)) expect(other).toEqual(read[0]);
    // The hook's query (`usePartialUser`): every tab watching it sees the same user, and the service is asked nothing.
    const watched = await Promise.all(
      browser.tabs.map(async (tab) => {
        await tab.subscribe('partial', { kind: 'partialUser' });
        return (await tab.waitFor('partial', (snapshot) => snapshot.data !== undefined)).data;
      }),
    );
    expect(watched).toEqual(browser.tabs.map(() => read[0]));
    expect(requests.slice(before)).toEqual([]);

    await first!.api.signOut();
    expect(await first!.api.getPartialUser()).toBeNull();
  } finally {
    browser.close();
  }
}

/** An anonymous user counts as nobody unless asked for, as `useUser` treats one. */
export async function anAnonymousUserIsPartialOnlyWhenAskedFor(target: ServiceTarget): Promise<void> {
  const { browser } = await countedBroker(target, 1);
  try {
    const tab = browser.tabs[0]!;
    const guest = await tab.api.signUpAnonymously();
    expect(await tab.api.getPartialUser()).toBeNull();
    expect(await tab.api.getPartialUser({ includeAnonymous: true })).toMatchObject({
      id: guest.userId,
      isAnonymous: true,
      isRestricted: true,
      restrictedReason: { type: 'anonymous' },
      primaryEmail: null,
    });
  } finally {
    browser.close();
  }
}

/**
 * `getAuthHeaders()` is the official SDK's `x-stack-auth` form with no refresh token in it, and the
 * app's server knows the user from it (`verifyRequest`); without a user it carries none.
 */
export async function theAuthHeadersNameTheUserToTheAppServer(target: ServiceTarget): Promise<void> {
  const user = await signedUpUser(target, 'Header Person');
  const { browser } = await countedBroker(target, 1);
  try {
    const tab = browser.tabs[0]!;
    const server = serverApp(target);
    const signedOut = await tab.api.getAuthHeaders();
    expect(JSON.parse(signedOut['x-stack-auth'])).toEqual({ accessToken: null, refreshToken: null });
    expect(await server.verifyRequest({ headers: { ...signedOut } })).toBeNull();

    await tab.api.signInWithPassword({ email: user.email, password: PASSWORD });
    const headers = await tab.api.getAuthHeaders();
    expect(Object.keys(headers)).toEqual(['x-stack-auth']);
    const carried = JSON.parse(headers['x-stack-auth']) as Record<string, unknown>;
    expect(Object.keys(carried).sort()).toEqual(['accessToken', 'refreshToken']);
    expect(carried.refreshToken).toBeNull();
    const verified = await server.verifyRequest(new Request('http://app.example/api/notes', { headers }));
    expect(verified).toMatchObject({ userId: user.id, isAnonymous: false });
  } finally {
    browser.close();
  }
}
