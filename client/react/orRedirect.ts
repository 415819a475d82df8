/**
 * What `or: 'redirect'` does (`useUser`, `useConnectedAccount`) and `redirectToSignIn`: send the
 * page to sign in, to onboarding, or to link an account, once. Part of the user hooks' lazy chunk
 * (`userChunk.ts`), so it imports nothing the tab's main chunk imports: the return path's reader comes
 * from the caller.
 */
import type { BrokerClient } from '../brokerClient.js';

/** `readReturnTo` and `RETURN_TO_PARAM` (redirects.ts). */
export interface ReturnTo {
  read(href: string, rules: { origin: string }): string | null;
  param: string;
}

/** A promise that never settles: what a component suspends on while the page navigates away. */
const forever = new Promise<never>(() => undefined);

/**
 * Starts a navigation once per client and purpose, after the current render (several components,
 * or StrictMode's double render, asking for the same redirect start one), then suspends the render
 * for good. Cleared when the navigation did not happen, so a later render can try again.
 */
const started = new WeakMap<BrokerClient, Set<string>>();
function leaveOnce(client: BrokerClient, purpose: string, go: () => boolean | void): never {
  let set = started.get(client);
  if (!set) started.set(client, (set = new Set()));
  if (!set.has(purpose)) {
    set.add(purpose);
    queueMicrotask(() => {
      if (go() === false) setTimeout(() => set.delete(purpose), 1000);
    });
  }
  throw forever;
}

/** Whether the browser is on the page of `url` (its query and trailing slashes aside). */
function isHere(url: URL, here: URL): boolean {
  return here.origin === url.origin && here.pathname.replace(/\/+$/, '') === url.pathname.replace(/\/+$/, '');
}

/**
 * Sends the browser to the sign-in page, with a way back. Never from the sign-in page to itself (an
 * app without a sign-in page there would loop), and never nesting `after_auth_return_to`: a page
 * that already carries one passes it on. Returns false when it did not go.
 */
export function goToSignIn(client: BrokerClient, returnTo: ReturnTo): boolean {
  const signIn = new URL(client.urls.signIn);
  const here = new URL(location.href);
  if (isHere(signIn, here)) {
    console.error(
      `useUser({ or: 'redirect' }) rendered on the sign-in page itself (${signIn.pathname}): render a sign-in form there, or set handlerPaths.signIn.`,
    );
    return false;
  }
  signIn.searchParams.set(
    returnTo.param,
    returnTo.read(here.href, { origin: here.origin }) ?? `${here.pathname}${here.search}${here.hash}`,
  );
  client.navigate(signIn.origin === here.origin ? `${signIn.pathname}${signIn.search}` : signIn.href);
  return true;
}

/**
 * `useUser({ or: 'redirect' })` with nobody signed in: the page goes to sign in (once), and the render suspends for
 * good.
 */
export function signInFirst(client: BrokerClient, returnTo: ReturnTo): never {
  leaveOnce(client, 'sign-in', () => goToSignIn(client, returnTo));
}

/**
 * `useUser({ or: 'redirect' })` with a restricted user: the page goes to the onboarding page (once), replacing this
 * one as the official SDK's `redirectToOnboarding({ replace: true })` does, with the way back; the render suspends for
 * good. Never from the onboarding page to itself.
 */
export function onboardingFirst(client: BrokerClient, returnTo: ReturnTo): never {
  leaveOnce(client, 'onboarding', () => {
    const onboarding = new URL(client.urls.onboarding);
    const here = new URL(location.href);
    if (isHere(onboarding, here)) {
      console.error(
        `useUser({ or: 'redirect' }) found a restricted user on the onboarding page itself (${onboarding.pathname}): give it includeRestricted: true, or set handlerPaths.onboarding.`,
      );
      return false;
    }
    onboarding.searchParams.set(
      returnTo.param,
      returnTo.read(here.href, { origin: here.origin }) ?? `${here.pathname}${here.search}${here.hash}`,
    );
    location.replace(
      onboarding.origin === here.origin ? `${onboarding.pathname}${onboarding.search}` : onboarding.href,
    );
  });
}

/**
 * Whether the linked account's token covers `scopes`, asked once per link and scope set. Keyed by
 * the link object of the user snapshot: a settled answer stays while React renders again (a lacking
 * scope must not be asked again on every render), and a new snapshot of the user (after linking
 * again, say) asks afresh.
 */
const scopeChecks = new WeakMap<object, Map<string, Promise<boolean>>>();
function grants(client: BrokerClient, link: object, providerId: string, scopes: string[]): Promise<boolean> {
  let checks = scopeChecks.get(link);
  if (!checks) scopeChecks.set(link, (checks = new Map()));
  const key = JSON.stringify([...scopes].sort());
  let check = checks.get(key);
  if (!check) {
    check = client.getConnectedAccountAccessToken(providerId, { scopes }).then(
      () => true,
      (error: unknown) => {
        // A leaf code of the catalogue: the known error itself, never a family.
        if ((error as { code?: unknown } | null)?.code === 'OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE')
          return false;
        throw error;
      },
    );
    checks.set(key, check);
  }
  return check;
}

/** Reads a promise during render (suspending until it settles), without React 19's `use` so React 18 works too. */
const settled = new WeakMap<Promise<unknown>, { value: unknown } | { error: unknown }>();
function readPromise<T>(promise: Promise<T>): T {
  const outcome = settled.get(promise);
  if (outcome === undefined) {
    throw promise.then(
      (value) => void settled.set(promise, { value }),
      (error: unknown) => void settled.set(promise, { error }),
    );
  }
  if ('error' in outcome) throw outcome.error;
  return outcome.value as T;
}

/**
 * `useConnectedAccount(providerId, { or: 'redirect' })` past reading the user: the account when it
 * is linked and grants `scopes` (asked of the broker, suspending meanwhile); otherwise the page goes
 * to link it (once per provider) and the render suspends for good.
 */
export function linkedAccount<A>(
  client: BrokerClient,
  account: A | null,
  link: object | null,
  providerId: string,
  scopes: string[],
): A {
  if (
    account !== null &&
    (scopes.length === 0 || link === null || readPromise(grants(client, link, providerId, scopes)))
  )
    return account;
  leaveOnce(client, `link:${providerId}`, () => void client.linkOAuthAccount(providerId, scopes));
}
