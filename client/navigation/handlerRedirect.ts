/**
 * Going to one of the app's handler pages (sign-in, sign-up, after sign-in, account settings…) with
 * the way back kept as the official SDK keeps it: the pages that send the visitor back once done
 * (sign-in, sign-up, sign-out, onboarding) get `after_auth_return_to`, this page unless it carries
 * one already; the pages on a sign-in's way (MFA, password reset, e-mail verification) pass on one
 * it carries; "after sign-in" and "after sign-up" go to it, when it is this app's. A lazy chunk
 * (`redirectTo` in redirects.ts loads it): the return path's reader comes from the caller.
 */
import type { HandlerPaths, HandlerUrls } from '../handlerUrls.js';

/** A handler page of the app, by its name in `handlerPaths`. */
export type HandlerPage = Exclude<keyof HandlerPaths, 'handler'>;

/** The options of `redirectTo`. */
export interface RedirectOptions {
  /** Replace this page in the history (a page load) rather than add an entry after it. */
  replace?: boolean;
  /** Go without a way back (no `after_auth_return_to`). */
  noRedirectBack?: boolean;
}

/** What a redirect needs of the client: its handler pages and its way of going to a page. */
export interface RedirectClient {
  readonly urls: HandlerUrls;
  navigate(to: string): void;
}

/** `readReturnTo` and `RETURN_TO_PARAM` (redirects.ts), handed in. */
export interface ReturnPath {
  read(href: string, rules: { origin: string }): string | null;
  param: string;
}

const SENDS_BACK: ReadonlySet<HandlerPage> = new Set(['signIn', 'signUp', 'signOut', 'onboarding']);
const ON_THE_WAY: ReadonlySet<HandlerPage> = new Set(['mfa', 'forgotPassword', 'passwordReset', 'emailVerification']);

/** Where `page` is, seen from `here`: a path when it is on this origin, else its whole URL. */
export function handlerTarget(
  page: HandlerPage,
  urls: HandlerUrls,
  here: URL,
  returnPath: ReturnPath,
  noRedirectBack = false,
): string {
  // Only a way back that stays on this app, read as `readReturnTo` reads one (never `//evil.example`).
  const back = noRedirectBack ? null : returnPath.read(here.href, { origin: here.origin });
  let target: URL;
  if (page === 'afterSignIn' || page === 'afterSignUp') {
    target = new URL(back ?? urls[page], here);
  } else {
    target = new URL(urls[page], here);
    const way = back ?? (SENDS_BACK.has(page) && !noRedirectBack ? `${here.pathname}${here.search}${here.hash}` : null);
    if (way !== null && (SENDS_BACK.has(page) || ON_THE_WAY.has(page)) && !target.searchParams.has(returnPath.param))
      target.searchParams.set(returnPath.param, way);
  }
  return target.origin === here.origin ? `${target.pathname}${target.search}${target.hash}` : target.href;
}

/** Goes there: through the app's router (`navigate` option), or with a page load that replaces this one. */
export function goToHandler(
  client: RedirectClient,
  page: HandlerPage,
  returnPath: ReturnPath,
  options: RedirectOptions = {},
): void {
  const to = handlerTarget(page, client.urls, new URL(location.href), returnPath, options.noRedirectBack === true);
  if (options.replace === true) location.replace(to);
  else client.navigate(to);
}
