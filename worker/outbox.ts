import * as endpoints from '../protocol/endpoints/index.js';
import { isKnownError } from '../protocol/errors/knownError.js';
import { createTransport, staticTokenSource } from '../protocol/transport.js';
import { refreshAccessToken, isAccessTokenExpiring } from '../protocol/tokens.js';
import type { BrokerCore } from './core.js';

/** Keeps a sign-out that could not reach the service, to send when the network returns. */
export async function queueSignOut(core: BrokerCore, refreshToken: string, accessToken: string | null): Promise<void> {
  await core.storage
    .addOutbox({ projectId: core.config.projectId, kind: 'sign-out', refreshToken, accessToken, createdAtMillis: core.clock.now() })
    .catch(() => undefined);
}

const flushes = new WeakMap<BrokerCore, Promise<void>>();

/**
 * Sends the kept sign-outs: renews an access token for the old session if needed, then deletes
 * the session. A session the service no longer knows is done too. Network failures keep the item.
 */
export function flushOutbox(core: BrokerCore): Promise<void> {
  const running = flushes.get(core);
  if (running) return running;
  const flushing = (async () => {
    const items = await core.storage.listOutbox(core.config.projectId).catch(() => []);
    for (const item of items) {
      if (core.connectivity.isOffline) return;
      try {
        let accessToken = item.accessToken;
        if (accessToken === null || isAccessTokenExpiring(accessToken, core.clock.now(), core.config.tokenMarginMillis)) {
          accessToken = (await refreshAccessToken(core.tokenEndpoint('user'), item.refreshToken)).access_token;
        }
        const t = createTransport({
          baseUrl: core.config.baseUrl,
          projectId: core.config.projectId,
          accessType: 'client',
          publishableClientKey: core.config.publishableClientKey,
          userTokens: staticTokenSource(accessToken),
          fetch: core.fetch,
          clock: core.clock,
        });
        await endpoints.signOutCurrentSession(t, { maxAttempts: 1 });
      } catch (error) {
        const done = isKnownError(error, 'REFRESH_TOKEN_ERROR') || isKnownError(error, 'INVALID_ACCESS_TOKEN');
        if (!done) continue;
      }
      if (item.id !== undefined) await core.storage.removeOutbox(item.id).catch(() => undefined);
    }
  })().finally(() => flushes.delete(core));
  flushes.set(core, flushing);
  return flushing;
}
