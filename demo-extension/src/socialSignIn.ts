/**
 * Social sign-in from an extension page, which says why it cannot work before the sign-in window
 * opens. The window comes back to the extension's redirect URL (`https://<id>.chromiumapp.org/…`,
 * `https://<hash>.extensions.allizom.org/…`); when the project does not trust it, the service
 * refuses the callback (`REDIRECT_URL_NOT_WHITELISTED`) inside the window, which Chromium reports
 * only as "Authorization page could not be loaded" and Firefox not at all (its window stays on the
 * service's answer). The project's trusted domains are public (its client view lists them), so the
 * page checks the URL against them first and names the cause and the fix.
 */
import { oauthRedirectUrl, type ExtensionClient } from '../../client/extension/index.js';
import { isTrustedRedirectUrl } from '../../protocol/validation.js';

/** Why the project will refuse this extension's sign-in window, or null when it trusts it (or cannot be asked). */
export async function untrustedRedirect(auth: ExtensionClient): Promise<string | null> {
  const redirect = oauthRedirectUrl();
  let domains: Array<{ domain: string; handlerPath: string }>;
  try {
    // Fresh: a developer who has just added the domain is not told off by a copy read before.
    await auth.refetch({ kind: 'project' });
    domains = (await auth.read({ kind: 'project' })).config.domains;
  } catch {
    // The service will answer for itself.
    return null;
  }
  const trusted = isTrustedRedirectUrl(redirect, {
    allowLocalhost: false,
    domains: domains.map(({ domain, handlerPath }) => ({ domain, handler_path: handlerPath })),
  });
  if (trusted) return null;
  const origin = new URL(redirect).origin;
  const browser = origin.endsWith('.chromiumapp.org') ? 'Chromium' : 'Firefox';
  return `Social sign-in cannot finish: this project does not trust ${origin}, where ${browser} sends the sign-in window back (the service would answer REDIRECT_URL_NOT_WHITELISTED). Add ${origin} to the project's trusted domains: in the Stack Auth dashboard (Domains), or against the emulator in the demo's admin area (Settings).`;
}

/** Signs in with a provider, or resolves with why it could not (the message to show). */
export async function signInWithProvider(auth: ExtensionClient, providerId: string): Promise<string | null> {
  const refusal = await untrustedRedirect(auth);
  if (refusal !== null) return refusal;
  try {
    await auth.signInWithOAuth(providerId);
    return null;
  } catch (error) {
    // The trust list may have changed meanwhile: the cause, when it is that, says more than "the window closed".
    return (await untrustedRedirect(auth)) ?? (error instanceof Error ? error.message : String(error));
  }
}
