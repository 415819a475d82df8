/**
 * What `useConnectedAccount(providerId, { or: 'redirect' })` does beyond reading the user, a lazy
 * chunk of its own (most pages never link an account): link the account when it is missing or lacks
 * the scopes. It imports nothing the tab's main chunk imports; the navigation, started once per
 * purpose, is handed in.
 */
import type { BrokerClient } from '../client.js';

/** A promise that never settles: what a component suspends on while the page navigates away. */
const forever = new Promise<never>(() => undefined);

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
        if ((error as { code?: unknown } | null)?.code === 'OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE') return false;
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
 * The account when it is linked and grants `scopes` (asked of the broker, suspending meanwhile);
 * otherwise the page goes to link it (`navigateOnce`, once per provider) and this throws a promise
 * that never settles.
 */
export function linkedAccount<A>(client: BrokerClient, account: A | null, link: object | null, providerId: string, scopes: string[], navigateOnce: (purpose: string, go: () => void) => void): A {
  if (account !== null && (scopes.length === 0 || link === null || readPromise(grants(client, link, providerId, scopes)))) return account;
  navigateOnce(`link:${providerId}`, () => void client.linkOAuthAccount(providerId, scopes));
  throw forever;
}
