/// <reference lib="webworker" />
/**
 * Tokens the page never holds (issue 43, item 2): with `appRequests.attachInServiceWorker`, the service worker that
 * hosts the broker attaches the user's access token to the page's own `fetch` calls to the origins the app allows, so
 * no page, and no script injected into one, is ever given an access token (the broker refuses every way of asking:
 * tokenGuard.ts), while the app's requests still carry one. A 401 renews it once, for every tab, and the request goes
 * once more (sendWithToken.ts).
 *
 * Untouched: navigations (a link or a form of another site can start one: a token attached to them would be a
 * credential the browser sends on another site's behalf, which a bearer token exists to avoid), requests that are not
 * the page's `fetch` or XHR (images, scripts, styles: `destination` is not ''), `no-cors` requests (whose headers the
 * browser strips), requests that carry the header already, and every origin the app did not allow. Only the pages this
 * worker controls reach it: a page it does not control yet sends its requests without a token (the client asks the
 * worker to take the page as it connects: `CLAIM_MESSAGE`).
 */
import type { Clock } from '../../protocol/clock.js';
import type { AppSession } from './appTokens.js';
import { appTokensOf } from './appTokens.js';
import { isAllowedOrigin } from './allowedOrigins.js';
import type { ResolvedAppRequests } from './appRequestOptions.js';
import { sendWithToken } from './sendWithToken.js';

/** What a page sends the worker so that it takes the page (`clients.claim()`), which it does not on its own. */
export const CLAIM_MESSAGE = 'authbroker:claim';

/** A broker as the worker's fetch handler uses it. */
export interface AttachingBroker {
  config: { appRequests: ResolvedAppRequests; tokenMarginMillis: number };
  parts: { session: AppSession; clock: Clock };
}

/** The broker whose app requests `request` is one of, if any. */
export function attachingBrokerFor(request: Request, brokers: Iterable<AttachingBroker>): AttachingBroker | null {
  if (request.mode === 'navigate' || request.mode === 'no-cors' || request.destination !== '') return null;
  for (const broker of brokers) {
    const { appRequests } = broker.config;
    if (!appRequests.attachInServiceWorker || !isAllowedOrigin(appRequests, request.url)) continue;
    return request.headers.has(appRequests.tokenHeader) ? null : broker;
  }
  return null;
}

/** Answers the fetch events of the app's requests with the token attached; claims pages that ask. */
export function attachTokens(scope: ServiceWorkerGlobalScope, brokers: () => Iterable<AttachingBroker>): void {
  scope.addEventListener('fetch', (event) => {
    const broker = attachingBrokerFor(event.request, brokers());
    if (broker === null) return;
    const { session, clock } = broker.parts;
    event.respondWith(
      sendWithToken(event.request, {
        fetch: (request) => fetch(request),
        tokens: appTokensOf(session, clock, broker.config.tokenMarginMillis),
        config: broker.config.appRequests,
      }),
    );
  });
  scope.addEventListener('message', (event) => {
    // Taking an uncontrolled page of the scope changes nothing else: any page may ask.
    if ((event.data as { type?: unknown } | null)?.type === CLAIM_MESSAGE) event.waitUntil(scope.clients.claim());
  });
}
