/**
 * The app's own pages for auth steps (they are the app's routes, not ours). The e-mails and
 * redirects the service sends point at them, so they are configuration.
 */
export interface HandlerPaths {
  handler: string;
  signIn: string;
  signUp: string;
  signOut: string;
  emailVerification: string;
  passwordReset: string;
  forgotPassword: string;
  oauthCallback: string;
  magicLinkCallback: string;
  accountSettings: string;
  error: string;
  teamInvitation: string;
  /** Where a CLI or desktop app's sign-in is confirmed (`login_code` in the query): `client.confirmCliLogin`. */
  cliAuthConfirm: string;
  /** The second factor of a sign-in (TOTP), for apps that give it a page of its own. */
  mfa: string;
  /** Where a restricted user completes what the project requires (e.g. verifies their e-mail). */
  onboarding: string;
  home: string;
  afterSignIn: string;
  afterSignUp: string;
  afterSignOut: string;
}

/** The pages under `handler`, each at its name in kebab case (`signIn` is `/handler/sign-in`). */
const HANDLER_PAGES = [
  'signIn',
  'signUp',
  'signOut',
  'emailVerification',
  'passwordReset',
  'forgotPassword',
  'oauthCallback',
  'magicLinkCallback',
  'accountSettings',
  'error',
  'teamInvitation',
  'cliAuthConfirm',
  'mfa',
  'onboarding',
] as const;
/** Fails to compile when a page of HandlerPaths is neither under `handler` nor one of the others. */
const everyPageListed: Exclude<
  keyof HandlerPaths,
  (typeof HANDLER_PAGES)[number] | 'handler' | 'home' | 'afterSignIn' | 'afterSignUp' | 'afterSignOut'
> extends never
  ? true
  : never = true;
void everyPageListed;

/** Defaults under `/handler`, as the official SDK's pages. */
export function handlerPaths(overrides: Partial<HandlerPaths> = {}): HandlerPaths {
  const handler = overrides.handler ?? '/handler';
  const home = overrides.home ?? '/';
  const paths = { handler } as HandlerPaths;
  for (const page of HANDLER_PAGES)
    paths[page] = `${handler}/${page.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
  return { ...paths, home, afterSignIn: home, afterSignUp: home, afterSignOut: home, ...overrides };
}

/** The handler pages as absolute URLs of the app's origin. */
export type HandlerUrls = { [K in keyof HandlerPaths]: string };

/** The handler pages that links in e-mails open. */
const EMAIL_LINK_PAGES = ['emailVerification', 'passwordReset', 'magicLinkCallback', 'teamInvitation'] as const;

/**
 * Absolute URLs of the handler pages, for callback URLs in e-mails and OAuth redirects. With
 * `emailLinkBase` (the `handlerBaseUrl` option: where an e-mail's link can open when this page's own
 * origin cannot be, such as a browser extension's), the pages e-mails link to are under that base,
 * its path included (`https://example.com/app` + `/handler/password-reset`); the others stay here.
 */
export function handlerUrls(paths: HandlerPaths, origin: string, emailLinkBase?: string): HandlerUrls {
  const out = {} as HandlerUrls;
  for (const key of Object.keys(paths) as Array<keyof HandlerPaths>) out[key] = new URL(paths[key], origin).toString();
  if (emailLinkBase !== undefined) {
    const base = new URL(emailLinkBase);
    const prefix = base.pathname.replace(/\/$/, '');
    for (const key of EMAIL_LINK_PAGES) out[key] = new URL(`${prefix}${paths[key]}`, base.origin).toString();
  }
  return out;
}
