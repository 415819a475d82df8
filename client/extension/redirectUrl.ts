import { extensionRedirectUrl } from './identity.js';
import { requireExtension } from './extensionOptions.js';

/**
 * Where this extension's social sign-in comes back to (`identity.getRedirectURL`):
 * `https://<id>.chromiumapp.org/authbroker-oauth` in Chromium, `https://<hash>.extensions.allizom.org/authbroker-oauth`
 * in Firefox. Add its scheme and host to the project's trusted domains.
 */
export function oauthRedirectUrl(): string {
  return extensionRedirectUrl(requireExtension('oauthRedirectUrl'));
}
