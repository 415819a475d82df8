import { act, render, screen, waitFor } from '@testing-library/react';
import { StrictMode, Suspense } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthProvider, useUser, useUserState, type UseUserOptions } from '../../../client/react/index.js';
import { endpoints } from '../../../protocol/index.js';
import { transportFor, uniqueEmail, useEmulator } from '../../support/emulator.js';
import { Boundary, newClient, quietConsoleErrors, resetBrowser } from './helpers.js';

/** Anonymous users in the hooks: who counts as signed in, and `useUser({ or: 'anonymous' })`. */
const emulator = useEmulator();
afterEach(resetBrowser);

function Who({ testId, options }: { testId: string; options?: UseUserOptions }) {
  const user = useUser(options);
  return (
    <p data-testid={testId}>
      {user === null ? 'nobody' : `${user.id}|${user.isAnonymous ? 'anonymous' : (user.primaryEmail ?? '')}`}
    </p>
  );
}

function State() {
  const state = useUserState();
  return <p data-testid="state">{state.status}</p>;
}

const text = (testId: string) => screen.getByTestId(testId).textContent;
/**
 * A whole sign-up from a cold page (the broker's chunk, the service methods, the service), and React's 300 ms reveal
 * throttle.
 */
const SIGN_UP = { timeout: 5000 };

describe('useUser({ or: "anonymous" })', () => {
  it('signs up one anonymous user however many components ask (StrictMode too), and shows it once the tab has it', async () => {
    const em = emulator();
    const client = newClient(em);
    const signUp = vi.spyOn(client, 'signUpAnonymously');
    render(
      <StrictMode>
        <AuthProvider client={client}>
          <Suspense fallback={<p data-testid="loading">loading</p>}>
            <Who testId="a" options={{ or: 'anonymous' }} />
            <Who testId="b" options={{ or: 'anonymous' }} />
          </Suspense>
          <Suspense fallback={<p>loading</p>}>
            <Who testId="plain" />
          </Suspense>
          <State />
        </AuthProvider>
      </StrictMode>,
    );
    await waitFor(() => expect(text('a')).toMatch(/\|anonymous$/), SIGN_UP);
    expect(text('b')).toBe(text('a'));
    expect(signUp).toHaveBeenCalledTimes(1);
    // Elsewhere, an anonymous user counts as nobody, as in the official SDK; the state says what it is.
    expect(text('plain')).toBe('nobody');
    expect(text('state')).toBe('anonymous');
    const userId = text('a')!.split('|')[0]!;
    expect((await endpoints.getUser(transportFor(em, 'server'), userId)).is_anonymous).toBe(true);
  });

  it('keeps the user already signed in, anonymous or not', async () => {
    const em = emulator();
    const client = newClient(em);
    const email = uniqueEmail('kept-signed-in');
    await client.signUpWithPassword({ email, password: 'a-long-password' });
    render(
      <AuthProvider client={client}>
        <Suspense fallback={<p>loading</p>}>
          <Who testId="a" options={{ or: 'anonymous' }} />
        </Suspense>
      </AuthProvider>,
    );
    await waitFor(() => expect(text('a')).toMatch(new RegExp(`\\|${email}$`)), SIGN_UP);
  });

  it('a sign-up then upgrades it in place: the same id, now a user every hook counts', async () => {
    const em = emulator();
    const client = newClient(em);
    render(
      <AuthProvider client={client}>
        <Suspense fallback={<p>loading</p>}>
          <Who testId="a" options={{ or: 'anonymous' }} />
          <Who testId="plain" />
          <Who testId="included" options={{ includeAnonymous: true }} />
        </Suspense>
        <State />
      </AuthProvider>,
    );
    await waitFor(() => expect(text('a')).toMatch(/\|anonymous$/), SIGN_UP);
    const anonymousId = text('a')!.split('|')[0]!;
    expect(text('plain')).toBe('nobody');
    expect(text('included')).toBe(text('a'));
    const email = uniqueEmail('hook-upgrade');
    await act(() => client.signUpWithPassword({ email, password: 'a-long-password' }));
    await waitFor(() => expect(text('plain')).toBe(`${anonymousId}|${email}`), SIGN_UP);
    expect(text('a')).toBe(`${anonymousId}|${email}`);
    expect(text('state')).toBe('signed-in');
  });

  it("'throw' treats an anonymous user as nobody", async () => {
    quietConsoleErrors();
    const em = emulator();
    const client = newClient(em);
    await client.signUpAnonymously();
    const errors: unknown[] = [];
    render(
      <AuthProvider client={client}>
        <Boundary onError={(error) => errors.push(error)}>
          <Suspense fallback={<p>loading</p>}>
            <Who testId="a" options={{ or: 'throw' }} />
          </Suspense>
        </Boundary>
      </AuthProvider>,
    );
    await waitFor(() => expect(errors).toHaveLength(1));
    expect(errors[0]).toMatchObject({ code: 'NOT_SIGNED_IN' });
  });

  it('a failed sign-up reaches the error boundary, and the next render tries again', async () => {
    quietConsoleErrors();
    const em = emulator();
    const client = newClient(em);
    const signUp = vi
      .spyOn(client, 'signUpAnonymously')
      .mockRejectedValueOnce(Object.assign(new Error('the service said no'), { code: 'SIGN_UP_REJECTED' }));
    const errors: unknown[] = [];
    const view = () => (
      <AuthProvider client={client}>
        <Boundary onError={(error) => errors.push(error)}>
          <Suspense fallback={<p>loading</p>}>
            <Who testId="a" options={{ or: 'anonymous' }} />
          </Suspense>
        </Boundary>
      </AuthProvider>
    );
    const { unmount } = render(view());
    await waitFor(() => expect(errors).toHaveLength(1));
    expect(errors[0]).toMatchObject({ message: 'the service said no' });
    unmount();
    render(view());
    await waitFor(() => expect(text('a')).toMatch(/\|anonymous$/), SIGN_UP);
    expect(signUp).toHaveBeenCalledTimes(2);
  });
});
