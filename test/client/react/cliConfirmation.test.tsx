import { act, render, screen, waitFor } from '@testing-library/react';
import { StrictMode, Suspense } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthProvider, useCliLoginConfirmation } from '../../../client/react/index.js';
import { startCliLogin, type CliLogin } from '../../../protocol/server.js';
import { useEmulator } from '../../support/emulator.js';
import { createUser, newClient, PAGE_ORIGIN, resetBrowser } from './helpers.js';

/**
 * The CLI confirmation page's hook in a tab: a click confirms (and only a click), with nobody signed
 * in it goes to sign in and finishes on the way back, and the CLI then has the session.
 */
const emulator = useEmulator();
afterEach(() => {
  sessionStorage.clear();
  history.replaceState(null, '', '/');
  return resetBrowser();
});

function ConfirmPage() {
  const page = useCliLoginConfirmation();
  return (
    <div>
      <p data-testid="status">{page.status}</p>
      <p data-testid="error">{(page.error as { code?: string } | null)?.code ?? ''}</p>
      <button onClick={page.confirm}>Authorize</button>
    </div>
  );
}

function cliLogin(): Promise<CliLogin> {
  const { demo } = emulator().projects;
  return startCliLogin({
    baseUrl: emulator().url,
    projectId: demo.id,
    publishableClientKey: demo.publishableClientKey,
    appUrl: PAGE_ORIGIN,
    pollIntervalMillis: 100,
  });
}

function openPage(login: CliLogin, navigate = vi.fn(), strict = false) {
  const url = new URL(login.url);
  history.replaceState(null, '', `${url.pathname}${url.search}`);
  const client = newClient(emulator(), { navigate });
  const tree = (
    <AuthProvider client={client}>
      <Suspense fallback={<p data-testid="status">loading</p>}>
        <ConfirmPage />
      </Suspense>
    </AuthProvider>
  );
  const view = render(strict ? <StrictMode>{tree}</StrictMode> : tree);
  return { client, navigate, view };
}

const status = () => screen.getByTestId('status').textContent;

describe('useCliLoginConfirmation', () => {
  it('confirms on a click only, and the CLI gets the signed-in user', async () => {
    const account = await createUser(emulator());
    const login = await cliLogin();
    const { client } = openPage(login);
    await client.signInWithPassword({ email: account.email, password: account.password });
    await waitFor(() => expect(status()).toBe('ready'));
    // Signed in and on the page: still nothing is confirmed until the person clicks.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(status()).toBe('ready');
    await act(async () => screen.getByText('Authorize').click());
    await waitFor(() => expect(status()).toBe('confirmed'));
    expect((await login.waitForSession()).user.id).toBe(account.id);
  });

  it('with nobody signed in, goes to sign in and back, and finishes the confirmation the click asked for', async () => {
    const account = await createUser(emulator());
    const login = await cliLogin();
    const first = openPage(login);
    await waitFor(() => expect(status()).toBe('ready'));
    await act(async () => screen.getByText('Authorize').click());
    await waitFor(() => expect(status()).toBe('leaving'));
    await waitFor(() => expect(first.navigate).toHaveBeenCalled());
    const signInPath = first.navigate.mock.calls.at(-1)![0] as string;
    const back = new URL(signInPath, PAGE_ORIGIN).searchParams.get('after_auth_return_to');
    expect(signInPath).toMatch(/^\/handler\/sign-in\?after_auth_return_to=/);
    expect(back).toBe(`/handler/cli-auth-confirm?login_code=${login.loginCode}`);
    first.view.unmount();

    // Signed in on the sign-in page, the person comes back: the confirmation finishes by itself, once (StrictMode
    // runs the page's effect twice).
    await first.client.signInWithPassword({ email: account.email, password: account.password });
    openPage(login, vi.fn(), true);
    await waitFor(() => expect(status()).toBe('confirmed'));
    expect((await login.waitForSession()).user.id).toBe(account.id);
    // A second confirmation would have failed (the code is spent) and said so.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(status()).toBe('confirmed');
  });

  it('a link alone never confirms, and a code the service no longer takes says so', async () => {
    const account = await createUser(emulator());
    const login = await cliLogin();
    const { client, view } = openPage(login);
    await client.signInWithPassword({ email: account.email, password: account.password });
    await waitFor(() => expect(status()).toBe('ready'));
    view.unmount();
    // A second visit, signed in, with no click of this tab behind it: nothing happens.
    openPage(login);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(status()).toBe('ready');
    await act(async () => screen.getByText('Authorize').click());
    await waitFor(() => expect(status()).toBe('confirmed'));
    // The same code again is refused, saying why.
    await act(async () => screen.getByText('Authorize').click());
    await waitFor(() => expect(status()).toBe('failed'));
    expect(screen.getByTestId('error').textContent).toBe('CLI_LOGIN_INVALID');
  });
});
