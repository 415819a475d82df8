/**
 * The header a page sends with its calls to the app's own server, in the official SDK's form
 * (`getAuthHeaders()`: `x-stack-auth`, a JSON object), so that a server written for the SDK reads
 * it as it is. authbroker's never holds a refresh token: a page has none to give.
 */

/** The header's name. */
export const AUTH_HEADER = 'x-stack-auth';

/** What `getAuthHeaders()` answers: the SDK's `{ 'x-stack-auth': JSON }`, without the refresh token. */
export type AuthHeaders = { 'x-stack-auth': string };

/** The headers for a call made as the user of `accessToken` (null: nobody signed in, as the SDK sends it then). */
export function authHeadersFor(accessToken: string | null): AuthHeaders {
  return { [AUTH_HEADER]: JSON.stringify({ accessToken, refreshToken: null }) };
}
