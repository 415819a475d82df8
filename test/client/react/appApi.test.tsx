import { act, render, screen, waitFor } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import type { BrokerClient, User } from '../../../client/index.js';
import { AuthProvider, useConnectedAccount, useUser, type ConnectedAccount } from '../../../client/react/index.js';
import { accountIdFor } from '../../../emulator/dev/oauthProvider.js';
import { useEmulator } from '../../support/emulator.js';
import { callback, consent, providerPage } from '../../support/oauth.js';
import { createUser, newClient, PAGE_ORIGIN, recordNavigations, resetBrowser } from './helpers.js';

/**
 * What an app written against the official SDK expects of the hooks: the forms' types, connected
 * accounts that link themselves (with the scopes asked for), and callback URLs it need not pass.
 */
const emulator = useEmulator();
afterEach(async () => {
  history.replaceState(null, '', '/');
  await resetBrowser();
});

describe('useUser forms, as types', () => {
  it("'redirect' and 'throw' are typed non-null; the default and 'return-null' may be null", () => {
    // Type-checked by `npm run typecheck`; never called (hooks need a component).
    const forms = () => {
      expectTypeOf(useUser({ or: 'redirect' })).toEqualTypeOf<User>();
      expectTypeOf(useUser({ or: 'throw' })).toEqualTypeOf<User>();
      expectTypeOf(useUser()).toEqualTypeOf<User | null>();
      expectTypeOf(useUser({ or: 'return-null' })).toEqualTypeOf<User | null>();
      expectTypeOf(
        useConnectedAccount('github', { or: 'redirect', scopes: ['repo'] }),
      ).toEqualTypeOf<ConnectedAccount>();
      expectTypeOf(useConnectedAccount('github')).toEqualTypeOf<ConnectedAccount | null>();
    };
    expect(typeof forms).toBe('function');
  });
});

function Drive() {
  const account = useConnectedAccount('github', { or: 'redirect', scopes: ['repo'] });
  return <p data-testid="account">{`${account.providerId}:${account.accountId}`}</p>;
}

/** A page that needs GitHub with the `repo` scope. */
function renderDrive(client: BrokerClient) {
  return render(
    <AuthProvider client={client}>
      <Suspense fallback={<p>waiting</p>}>
        <Drive />
      </Suspense>
    </AuthProvider>,
  );
}

describe("useConnectedAccount(provider, { or: 'redirect', scopes })", () => {
  beforeEach(async () => {
    // As in the OAuth flow tests: oauth4webapi's instanceof checks want Node's buffers, not jsdom's.
    vi.stubGlobal(
      'ArrayBuffer',
      Object.getPrototypeOf(await crypto.subtle.digest('SHA-256', new Uint8Array(1))).constructor,
    );
    vi.stubGlobal('Uint8Array', Object.getPrototypeOf(new TextEncoder().encode('')).constructor);
  });

  it('an account not linked yet: the page goes to link it, once, asking for the scopes, and comes back here', async () => {
    const account = await createUser(emulator());
    history.replaceState(null, '', '/projects?tab=code');
    const { assign } = recordNavigations();
    const client = newClient(emulator());
    await client.signInWithPassword({ email: account.email, password: account.password });
    renderDrive(client);
    await waitFor(() => expect(assign).toHaveBeenCalledTimes(1));
    const authorize = new URL(assign.mock.calls[0]![0] as string);
    expect(authorize.pathname).toBe('/api/v1/auth/oauth/authorize/github');
    expect(authorize.searchParams.get('type')).toBe('link');
    expect(authorize.searchParams.get('provider_scope')?.split(' ')).toContain('repo');
    expect(authorize.searchParams.get('after_callback_redirect_url')).toBe(`${PAGE_ORIGIN}/projects?tab=code`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(assign).toHaveBeenCalledTimes(1);
    expect(screen.queryByTestId('account')).toBeNull();
  });

  it('linked without the scope: linked again with it; after the provider’s consent the account renders, and nothing navigates', async () => {
    // Linked to the account the mock provider gives octo@example.com, with no token for `repo`.
    const account = await createUser(emulator(), {
      oauth_providers: [
        { id: 'github', account_id: accountIdFor('github', 'octo@example.com'), email: 'octo@example.com' },
      ],
    });
    const { assign, replace } = recordNavigations();
    const client = newClient(emulator());
    await client.signInWithPassword({ email: account.email, password: account.password });
    const { unmount } = renderDrive(client);
    await waitFor(() => expect(assign).toHaveBeenCalledTimes(1));
    expect(new URL(assign.mock.calls[0]![0] as string).searchParams.get('provider_scope')?.split(' ')).toContain(
      'repo',
    );
    unmount();

    // The person approves at the provider and lands on the callback page.
    const flow = await providerPage(assign.mock.calls[0]![0] as string);
    const back = await callback(await consent(flow, { email: 'octo@example.com' }), flow.cookie);
    const landing = new URL(back.location!);
    history.replaceState(null, '', landing.pathname + landing.search);
    expect(await client.handleOAuthCallback({ navigate: false })).toMatchObject({ status: 'signed-in', type: 'link' });
    await act(() => client.refetch({ kind: 'currentUser' }));

    renderDrive(client);
    await waitFor(() => expect(screen.getByTestId('account').textContent).toMatch(/^github:/));
    expect(assign).toHaveBeenCalledTimes(1);
    expect(replace).not.toHaveBeenCalled();
    const token = await client.getConnectedAccountAccessToken('github', { scopes: ['repo'] });
    expect(token.accessToken).toEqual(expect.any(String));
  });
});

describe('callback URLs from the client’s handler paths', () => {
  it('a tab sends its handler pages (with the app’s handlerPaths), so e-mails link back to it; an explicit URL wins', async () => {
    const em = emulator();
    const account = await createUser(em, { primary_email_verified: true });
    const client = newClient(em, {
      handlerPaths: { passwordReset: '/account/new-password', magicLinkCallback: '/auth/link' },
    });
    const mail = (template: string) =>
      em.env.mailbox
        .list(account.email)
        .filter((m) => m.template === template)
        .at(-1)!.link!;
    await client.sendPasswordResetEmail({ email: account.email });
    expect(mail('password_reset')).toMatch(new RegExp(`^${PAGE_ORIGIN}/account/new-password\\?code=`));
    await client.sendMagicLink({ email: account.email });
    expect(mail('magic_link')).toMatch(new RegExp(`^${PAGE_ORIGIN}/auth/link\\?code=`));
    await client.sendPasswordResetEmail({ email: account.email, callbackUrl: `${PAGE_ORIGIN}/elsewhere` });
    expect(mail('password_reset')).toMatch(new RegExp(`^${PAGE_ORIGIN}/elsewhere\\?code=`));
  });
});
