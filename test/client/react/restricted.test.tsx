import { render, screen, waitFor } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthProvider, useUser, useUserState, type UseUserOptions } from '../../../client/react/index.js';
import { endpoints } from '../../../protocol/index.js';
import { transportFor, useEmulator } from '../../support/emulator.js';
import { Boundary, createUser, newClient, recordNavigations, resetBrowser } from './helpers.js';

/**
 * Restricted users in the hooks (here restricted by an administrator): `useUser()` leaves them out unless
 * `includeRestricted`, as the official SDK does, `or: 'redirect'` sends them to the onboarding page rather than to
 * sign in, and `useUserState()` says `restricted`.
 */
const emulator = useEmulator();
afterEach(resetBrowser);

function Who({ options }: { options?: UseUserOptions }) {
  const user = useUser(options);
  return <p data-testid="who">{user === null ? 'nobody' : `${user.id}|${user.restrictedReason?.type ?? 'free'}`}</p>;
}

function State() {
  return <p data-testid="state">{useUserState().status}</p>;
}

const text = (testId: string) => screen.getByTestId(testId).textContent;

/** A signed-in client of a user the server restricted. */
async function restrictedClient() {
  const em = emulator();
  const user = await createUser(em, { primary_email_verified: true });
  await endpoints.updateUser(transportFor(em, 'server'), user.id, {
    restricted_by_admin: true,
    restricted_by_admin_reason: 'Pending review',
  });
  const client = newClient(em);
  await client.signInWithPassword({ email: user.email, password: user.password });
  return { client, user };
}

function renderWith(client: ReturnType<typeof newClient>, options?: UseUserOptions) {
  render(
    <AuthProvider client={client}>
      <Boundary>
        <Suspense fallback={<p data-testid="who">loading</p>}>
          <Who options={options} />
        </Suspense>
      </Boundary>
      <State />
    </AuthProvider>,
  );
}

describe('restricted users in useUser', () => {
  it('counts as nobody by default; the state says restricted', async () => {
    const { client } = await restrictedClient();
    renderWith(client);
    await waitFor(() => expect(text('state')).toBe('restricted'));
    await waitFor(() => expect(text('who')).toBe('nobody'));
  });

  it('is the user, saying why, with includeRestricted', async () => {
    const { client, user } = await restrictedClient();
    renderWith(client, { includeRestricted: true });
    await waitFor(() => expect(text('who')).toBe(`${user.id}|restricted_by_administrator`));
  });

  it("goes to the onboarding page, not to sign in, with or: 'redirect' (replacing the page, with a way back)", async () => {
    const { client } = await restrictedClient();
    const { assign, replace } = recordNavigations();
    renderWith(client, { or: 'redirect' });
    await waitFor(() => expect(replace).toHaveBeenCalledTimes(1));
    expect(assign).not.toHaveBeenCalled();
    const to = new URL(replace.mock.calls[0]![0] as string, location.href);
    expect(to.pathname).toBe('/handler/onboarding');
    expect(to.searchParams.get('after_auth_return_to')).toBe(location.pathname);
  });

  it('leaves anonymous users to includeAnonymous alone, whatever includeRestricted says', async () => {
    const em = emulator();
    const client = newClient(em);
    const { userId } = await client.signUpAnonymously();
    renderWith(client, { includeAnonymous: true, includeRestricted: false });
    await waitFor(() => expect(text('who')).toBe(`${userId}|anonymous`));
  });
});
