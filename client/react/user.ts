import { useMemo } from 'react';
import type { User } from '../../protocol/models.js';
import { ClientError } from '../../protocol/errors/errors.js';
import type { BrokerClient } from '../client.js';
import { lazyChunk } from './lazyChunk.js';
import { useBrokerClient } from './provider.js';
import { useQuery, useSuspenseQuery } from './query.js';
import { readReturnTo, RETURN_TO_PARAM } from '../redirects.js';
import { SUSPENSE_HOLD_MILLIS } from '../store.js';

/** The options of {@link useUser}. */
export interface UseUserOptions {
  /**
   * When nobody is signed in: go to the sign-in page (`'redirect'`), throw NOT_SIGNED_IN to the
   * nearest error boundary (`'throw'`), return null (`'return-null'`, the default), or sign up an
   * anonymous user and return it (`'anonymous'`: suspends meanwhile; one sign-up however many
   * components ask). A later sign-up (password, magic link or OTP, OAuth) upgrades that user.
   */
  or?: 'redirect' | 'throw' | 'return-null' | 'anonymous';
  /**
   * Whether an anonymous user counts as signed in. By default it does not, as in the official SDK:
   * `useUser()` is then null for it and `or` applies, so pages that offer "Sign in" keep offering
   * it. `or: 'anonymous'` implies true.
   */
  includeAnonymous?: boolean;
}

/**
 * The user, or why there is none: read loading explicitly, without Suspense. An anonymous user
 * (see `client.signUpAnonymously`) is `'anonymous'`, not `'signed-in'`: a sign-in page that sends
 * signed-in visitors away keeps serving it, so that it can sign up and be upgraded.
 */
export type UserState =
  | { status: 'loading'; user: null }
  | { status: 'signed-out'; user: null }
  | { status: 'anonymous'; user: User }
  | { status: 'signed-in'; user: User };

/** A promise that never settles: what a component suspends on while the page navigates away. */
const forever = new Promise<never>(() => undefined);

/**
 * Starts a navigation once per client and purpose, after the current render (several components,
 * or StrictMode's double render, asking for the same redirect start one). Cleared when the
 * navigation did not happen, so a later render can try again.
 */
const started = new WeakMap<BrokerClient, Set<string>>();
function once(client: BrokerClient, purpose: string, go: () => Promise<boolean> | void): void {
  let set = started.get(client);
  if (!set) started.set(client, (set = new Set()));
  if (set.has(purpose)) return;
  set.add(purpose);
  queueMicrotask(() => {
    void Promise.resolve(go()).then((went) => {
      if (went === false) setTimeout(() => set.delete(purpose), 1000);
    });
  });
}

/**
 * Sends the browser to the sign-in page, with a way back. (redirects.ts is imported, not loaded
 * lazily: authbroker/client exports it anyway, and a lazy importer would split it into a chunk of its own.) Never from the sign-in page to itself
 * (an app without a sign-in page there would loop), and never nesting `after_auth_return_to`: a page
 * that already carries one passes it on. Returns false when it did not go.
 */
export async function redirectToSignIn(client: BrokerClient): Promise<boolean> {
  const signIn = new URL(client.urls.signIn);
  const here = new URL(location.href);
  if (here.origin === signIn.origin && here.pathname.replace(/\/+$/, '') === signIn.pathname.replace(/\/+$/, '')) {
    console.error(`useUser({ or: 'redirect' }) on the sign-in page itself (${signIn.pathname}): render a sign-in form there, or set handlerPaths.signIn.`);
    return false;
  }
  const returnTo = readReturnTo(here.href, { origin: here.origin }) ?? `${here.pathname}${here.search}${here.hash}`;
  signIn.searchParams.set(RETURN_TO_PARAM, returnTo);
  client.navigate(signIn.origin === here.origin ? `${signIn.pathname}${signIn.search}` : signIn.href);
  return true;
}

/** The user and whether it is known yet, never suspending. */
export function useUserState(): UserState {
  const query = useQuery({ kind: 'currentUser' });
  return useMemo(() => {
    if (query.data === undefined) return { status: 'loading', user: null };
    if (query.data === null) return { status: 'signed-out', user: null };
    return { status: query.data.isAnonymous ? 'anonymous' : 'signed-in', user: query.data };
  }, [query.data]);
}

/**
 * `or: 'anonymous'`: the sign-up, once per client, and what a render throws meanwhile are a lazy
 * chunk (anonymousSignUp.ts: most pages never sign anyone up anonymously).
 */
const anonymousSignUp = lazyChunk(() => import('./anonymousSignUp.js'));

/**
 * The signed-in user. Suspends until it is known (not when the tab already has it, e.g. from the
 * last visit's snapshot), then: the user, or what `or` says when nobody is signed in. An anonymous
 * user counts as nobody unless `includeAnonymous` (or `or: 'anonymous'`) says otherwise.
 */
export function useUser(options: { or: 'redirect' | 'throw' | 'anonymous'; includeAnonymous?: boolean }): User;
export function useUser(options?: { or?: 'return-null'; includeAnonymous?: boolean }): User | null;
export function useUser(options?: UseUserOptions): User | null;
export function useUser(options: UseUserOptions = {}): User | null {
  const client = useBrokerClient();
  const current = useSuspenseQuery({ kind: 'currentUser' });
  const includeAnonymous = options.includeAnonymous === true || options.or === 'anonymous';
  const user = current !== null && current.isAnonymous && !includeAnonymous ? null : current;
  if (user === null && options.or === 'anonymous') anonymousSignUp().suspendForAnonymousSignUp(client, SUSPENSE_HOLD_MILLIS);
  if (user === null && options.or === 'throw') throw new ClientError('NOT_SIGNED_IN', 'This page needs a signed-in user.');
  if (user === null && options.or === 'redirect') {
    // Never null for 'redirect': the page is going away (or, on the sign-in page itself, waits for a
    // sign-in). It suspends, so no effect would ever run: the navigation starts here, once per page.
    once(client, 'sign-in', () => redirectToSignIn(client));
    throw forever;
  }
  return user;
}

/** @deprecated `useUser` suspends the same way; kept for apps written against 0.1. */
export const useSuspenseUser = useUser;

/** A user's account at an OAuth provider, linked to their authbroker user. */
export interface ConnectedAccount {
  /** The provider (`google`, `github`, …). */
  providerId: string;
  /** The user's id at the provider. */
  accountId: string;
  /** The e-mail the provider gave, if any. */
  email: string | null;
  /** A provider access token covering `scopes` (and the scopes asked for when linking). */
  getAccessToken(scopes?: string[]): Promise<string>;
}

/** The options of {@link useConnectedAccount}. */
export interface UseConnectedAccountOptions {
  /**
   * When the account is not linked, or does not grant `scopes`: go and link it (asking for
   * `scopes`), or return null (the default).
   */
  or?: 'redirect' | 'return-null';
  /** Provider scopes the app needs (e.g. `['https://www.googleapis.com/auth/drive.readonly']`). */
  scopes?: string[];
}

/** What `or: 'redirect'` does beyond reading the user (accountLink.ts), a lazy chunk: most pages never link an account. */
const accountLink = lazyChunk(() => import('./accountLink.js'));

/**
 * The user's linked account at a provider. With `or: 'redirect'` it never returns null: an account
 * that is missing, or that lacks `scopes`, is linked first (the page goes to the provider and comes back).
 */
export function useConnectedAccount(providerId: string, options: { or: 'redirect'; scopes?: string[] }): ConnectedAccount;
export function useConnectedAccount(providerId: string, options?: UseConnectedAccountOptions): ConnectedAccount | null;
export function useConnectedAccount(providerId: string, options: UseConnectedAccountOptions = {}): ConnectedAccount | null {
  const client = useBrokerClient();
  const user = useUser(options.or === 'redirect' ? { or: 'redirect' } : {});
  const scopes = options.scopes ?? [];
  const link = user?.oauthProviders.find((p) => p.id === providerId) ?? null;
  const account = useMemo(
    () =>
      link === null
        ? null
        : {
            providerId: link.id,
            accountId: link.accountId,
            email: link.email,
            getAccessToken: async (more: string[] = scopes) => (await client.getConnectedAccountAccessToken(providerId, more.length === 0 ? {} : { scopes: more })).accessToken,
          },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [client, link, providerId, scopes.join(' ')],
  );
  if (options.or !== 'redirect') return account;
  return accountLink().linkedAccount(client, account, link, providerId, scopes, (purpose, go) => once(client, purpose, go));
}

/** @deprecated `useConnectedAccount` suspends the same way; kept for apps written against 0.1. */
export const useSuspenseConnectedAccount = (providerId: string): ConnectedAccount | null => useConnectedAccount(providerId);
