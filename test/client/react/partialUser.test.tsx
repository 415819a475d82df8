import { render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthProvider, usePartialUser } from '../../../client/react/index.js';
import { useEmulator } from '../../support/emulator.js';
import { createUser, newClient, resetBrowser } from './helpers.js';

/** `usePartialUser()` and `client.getPartialUser()`: the access token's user, the same in the hook and the method. */
const emulator = useEmulator();
afterEach(resetBrowser);

function Partial({ includeAnonymous }: { includeAnonymous?: boolean }) {
  const user = usePartialUser({ includeAnonymous });
  return (
    <p data-testid={includeAnonymous ? 'with-guests' : 'plain'}>
      {user === undefined ? 'undefined' : JSON.stringify(user)}
    </p>
  );
}

const shown = (testId: string) => screen.getByTestId(testId).textContent;

describe('usePartialUser', () => {
  it('shows the token’s user once known, null signed out, and a guest only when asked', async () => {
    const em = emulator();
    const account = await createUser(em, { display_name: 'Partly Known' });
    const client = newClient(em);
    render(
      <AuthProvider client={client}>
        <Partial />
        <Partial includeAnonymous />
      </AuthProvider>,
    );
    expect(shown('plain')).toBe('undefined');
    await waitFor(() => expect(shown('plain')).toBe('null'));

    await client.signInWithPassword({ email: account.email, password: account.password });
    const expected = await client.getPartialUser();
    expect(expected).toMatchObject({ id: account.id, displayName: 'Partly Known', primaryEmail: account.email });
    await waitFor(() => expect(shown('plain')).toBe(JSON.stringify(expected)));

    await client.signOut();
    await client.signUpAnonymously();
    await waitFor(() => expect(shown('with-guests')).toMatch(/"isAnonymous":true/));
    expect(shown('plain')).toBe('null');
    expect(await client.getPartialUser()).toBeNull();
  });
});
