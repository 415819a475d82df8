import { useMemo } from 'react';
import type { User } from '../../protocol/models.js';
import { ClientError } from '../../protocol/errors/errors.js';
import type { BrokerClient } from '../brokerClient.js';
import { lazyChunk } from './lazyChunk.js';
import { useBrokerClient } from './provider.js';
import { useQuery, useSuspenseQuery } from './query.js';
import { readReturnTo, RETURN_TO_PARAM } from '../redirects.js';
import { SUSPENSE_HOLD_MILLIS } from '../queryStore.js';

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
  /**
   * Whether a restricted user counts as signed in: one who signed up but has not done what the project
   * requires yet (`restrictedReason`: `email_not_verified` where the project requires verified e-mail,
   * `restricted_by_administrator`). By default it does not, as in the official SDK: `useUser()` is then null for
   * them, and `or: 'redirect'` goes to the onboarding page (`handlerPaths.onboarding`) rather than to sign-in.
   * Anonymous users, restricted too, follow `includeAnonymous` (and `or: 'anonymous'`) alone.
   */
  includeRestricted?: boolean;
}

/**
 * The user, or why there is none: read loading explicitly, without Suspense. An anonymous user
 * (see `client.signUpAnonymously`) is `'anonymous'`, not `'signed-in'`: a sign-in page that sends
 * signed-in visitors away keeps serving it, so that it can sign up and be upgraded. A restricted one
 * (`user.restrictedReason` says why) is `'restricted'`: the onboarding page serves it.
 */
export type UserState =
  | { status: 'loading'; user: null }
  | { status: 'signed-out'; user: null }
  | { status: 'anonymous'; user: User }
  | { status: 'restricted'; user: User }
  | { status: 'signed-in'; user: User };

/**
 * What `or` does beyond reading the user (going to sign in or to link an account, an anonymous
 * sign-up) is a lazy chunk, `userChunk.ts`: most pages never need it. It gets the return path's
 * reader from here (redirects.ts, which authbroker/client exports, so the main chunk has it anyway).
 */
const loadChunk = () => import('./userChunk.js');
const chunk = lazyChunk(loadChunk);
const returnTo = { read: readReturnTo, param: RETURN_TO_PARAM };

/**
 * Sends the browser to the sign-in page, with a way back. Never from the sign-in page to itself
 * (an app without a sign-in page there would loop), and never nesting `after_auth_return_to`: a page
 * that already carries one passes it on. Resolves with false when it did not go.
 */
export async function redirectToSignIn(client: BrokerClient): Promise<boolean> {
  return (await loadChunk()).goToSignIn(client, returnTo);
}

/** The user and whether it is known yet, never suspending. */
export function useUserState(): UserState {
  const query = useQuery({ kind: 'currentUser' });
  return useMemo(() => {
    if (query.data === undefined) return { status: 'loading', user: null };
    if (query.data === null) return { status: 'signed-out', user: null };
    const status = query.data.isAnonymous ? 'anonymous' : query.data.isRestricted ? 'restricted' : 'signed-in';
    return { status, user: query.data };
  }, [query.data]);
}

/**
 * The signed-in user. Suspends until it is known (not when the tab already has it, e.g. from the
 * last visit's snapshot), then: the user, or what `or` says when nobody is signed in. An anonymous
 * user counts as nobody unless `includeAnonymous` (or `or: 'anonymous'`) says otherwise, and a
 * restricted one unless `includeRestricted` does.
 */
export function useUser(options: { or: 'redirect' | 'throw' | 'anonymous' } & Omit<UseUserOptions, 'or'>): User;
export function useUser(options?: { or?: 'return-null' } & Omit<UseUserOptions, 'or'>): User | null;
export function useUser(options?: UseUserOptions): User | null;
export function useUser(options: UseUserOptions = {}): User | null {
  const client = useBrokerClient();
  // Fetched as soon as a component asks for it (never during server rendering), so that a page that
  // finds nobody signed in, or signs out, acts at once, as when this was in the main chunk.
  if ((options.or === 'redirect' || options.or === 'anonymous') && typeof window !== 'undefined') chunk.preload();
  const current = useSuspenseQuery({ kind: 'currentUser' });
  const includeAnonymous = options.includeAnonymous === true || options.or === 'anonymous';
  // Anonymous users are restricted ones: including them includes them, whatever includeRestricted says.
  const user =
    current !== null &&
    (current.isAnonymous ? !includeAnonymous : current.isRestricted && options.includeRestricted !== true)
      ? null
      : current;
  if (user === null && options.or === 'anonymous') chunk.read().suspendForAnonymousSignUp(client, SUSPENSE_HOLD_MILLIS);
  if (user === null && options.or === 'throw')
    throw new ClientError('NOT_SIGNED_IN', 'This page needs a signed-in user.');
  // Never null for 'redirect': the page is going away (or, on the sign-in page itself, waits for a
  // sign-in). It suspends, so no effect would ever run: the navigation starts here, once per page.
  if (user === null && options.or === 'redirect') {
    // A restricted user has signed in: what they lack is the project's onboarding, not a sign-in.
    if (current !== null && !current.isAnonymous) chunk.read().onboardingFirst(client, returnTo);
    chunk.read().signInFirst(client, returnTo);
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

/**
 * The user's linked account at a provider. With `or: 'redirect'` it never returns null: an account
 * that is missing, or that lacks `scopes`, is linked first (the page goes to the provider and comes back).
 */
export function useConnectedAccount(
  providerId: string,
  options: { or: 'redirect'; scopes?: string[] },
): ConnectedAccount;
export function useConnectedAccount(providerId: string, options?: UseConnectedAccountOptions): ConnectedAccount | null;
export function useConnectedAccount(
  providerId: string,
  options: UseConnectedAccountOptions = {},
): ConnectedAccount | null {
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
            getAccessToken: async (more: string[] = scopes) =>
              (await client.getConnectedAccountAccessToken(providerId, more.length === 0 ? {} : { scopes: more }))
                .accessToken,
          },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [client, link, providerId, scopes.join(' ')],
  );
  // Linked, with no scope to check: nothing to load.
  if (options.or !== 'redirect' || (account !== null && scopes.length === 0)) return account;
  return chunk.read().linkedAccount(client, account, link, providerId, scopes);
}

/** @deprecated `useConnectedAccount` suspends the same way; kept for apps written against 0.1. */
export const useSuspenseConnectedAccount = (providerId: string): ConnectedAccount | null =>
  useConnectedAccount(providerId);
