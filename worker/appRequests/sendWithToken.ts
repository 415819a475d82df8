/**
 * One request to the app's own API with the user's token attached, as the broker sends it (a queued `client.fetch`
 * call) and as the service worker sends the page's own calls (`attachInServiceWorker`): the token in the header the app
 * named; a 401 renews it (appTokens.ts: once for every tab) and the request goes once more.
 *
 * Browsers drop `Authorization` when a redirect leads to another origin, but no other header: with the token in a
 * header of the app's own, a redirect is not followed (the call fails), so that the token never reaches an origin the
 * app did not allow.
 */
import { appTokenHeader } from '../../contract/appRequests.js';
import type { AppTokens } from './appTokens.js';
import type { ResolvedAppRequests } from './appRequestOptions.js';

/** `request` carrying `token`. */
export function withToken(request: Request, tokenHeader: string, token: string): Request {
  const headers = new Headers(request.headers);
  const [name, value] = appTokenHeader(tokenHeader, token);
  headers.set(name, value);
  const init: RequestInit & { duplex?: 'half' } = { headers };
  if (name !== 'authorization') init.redirect = 'error';
  // A body that is a stream can only be passed on as one.
  if (request.body !== null) init.duplex = 'half';
  return new Request(request, init);
}

export interface SendWithTokenOptions {
  fetch: typeof fetch;
  tokens: AppTokens;
  config: Pick<ResolvedAppRequests, 'tokenHeader'>;
  /** Refuse rather than send without a token: the error to throw (NOT_SIGNED_IN), made by the caller's own classes. */
  requireUser?: (() => Error) | undefined;
}

/** Sends `request` with the token (none when nobody is signed in), renewing it once on a 401. */
export async function sendWithToken(request: Request, options: SendWithTokenOptions): Promise<Response> {
  const { tokens, config } = options;
  const first = (await tokens.token()).accessToken;
  if (first === null) {
    if (options.requireUser !== undefined) throw options.requireUser();
    return options.fetch(request);
  }
  // Taken before the body is read, so that it can go once more.
  const again = request.clone();
  const response = await options.fetch(withToken(request, config.tokenHeader, first));
  if (response.status !== 401) return response;
  const next = (await tokens.token(first)).accessToken;
  if (next === null || next === first) return response;
  await response.body?.cancel().catch(() => undefined);
  return options.fetch(withToken(again, config.tokenHeader, next));
}
