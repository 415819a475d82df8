import type { Clock } from '../../protocol/clock.js';
import * as endpoints from '../../protocol/endpoints/index.js';
import { isKnownError } from '../../protocol/errors/knownError.js';
import { isAccessTokenExpiring, type RefreshAccessToken, type TokenEndpointOptions } from '../../protocol/tokens.js';
import type { Transport } from '../../protocol/transport.js';
import type { BrokerStorage, OutboxItem } from '../storage/types.js';

export interface OutboxOptions {
  storage: Pick<BrokerStorage, 'addOutbox' | 'listOutbox' | 'removeOutbox'>;
  /** The service and project whose sign-outs these are (a refresh token is only ever sent to its own service). */
  key: string;
  clock: Clock;
  /** Renew an access token this long before it expires. */
  marginMillis: number;
  connectivity: { readonly isOffline: boolean };
  /** The refresh-token grant (loaded on first use: worker/tokenGrant.ts). */
  refreshAccessToken: RefreshAccessToken;
  /** Storage refused to keep a sign-out (it is kept in memory instead). */
  onStorageError?: (error: unknown) => void;
  /** The broker's transports: the sign-out goes out like any call (extra headers, connectivity). */
  transports: {
    withAccessToken(token: string): Transport<'client'>;
    tokenEndpoint(slot: 'user'): TokenEndpointOptions;
  };
}

export interface Outbox {
  /** Keeps a sign-out that could not reach the service, to send when the network returns. */
  queueSignOut(refreshToken: string): Promise<void>;
  /**
   * Sends the kept sign-outs: renews an access token for the old session if needed, then deletes
   * the session. A session the service no longer knows is done too. Network failures keep the item.
   */
  flush(): Promise<void>;
}

export function createOutbox(options: OutboxOptions): Outbox {
  const { storage, key, clock, connectivity, transports } = options;
  let flushing: Promise<void> | null = null;
  // Sign-outs storage refused to keep: still sent when the network returns, for as long as this
  // broker lives, so that the session is revoked at the service even though it could not be saved.
  const unsaved: OutboxItem[] = [];

  const forget = async (item: OutboxItem) => {
    const index = unsaved.indexOf(item);
    if (index >= 0) unsaved.splice(index, 1);
    else if (item.id !== undefined) await storage.removeOutbox(item.id).catch(() => undefined);
  };

  const flushOnce = async () => {
    const items = [...(await storage.listOutbox(key).catch(() => [])), ...unsaved];
    for (const item of items) {
      if (connectivity.isOffline) return;
      try {
        let accessToken = item.accessToken;
        if (accessToken === null || isAccessTokenExpiring(accessToken, clock.now(), options.marginMillis)) {
          accessToken = (await options.refreshAccessToken(transports.tokenEndpoint('user'), item.refreshToken))
            .access_token;
        }
        await endpoints.signOutCurrentSession(transports.withAccessToken(accessToken), { maxAttempts: 1 });
      } catch (error) {
        const done = isKnownError(error, 'REFRESH_TOKEN_ERROR') || isKnownError(error, 'INVALID_ACCESS_TOKEN');
        if (!done) continue;
      }
      await forget(item);
    }
  };

  return {
    async queueSignOut(refreshToken) {
      const item: OutboxItem = {
        projectId: key,
        kind: 'sign-out',
        refreshToken,
        accessToken: null,
        createdAtMillis: clock.now(),
      };
      await storage.addOutbox(item).catch((error: unknown) => {
        unsaved.push(item);
        options.onStorageError?.(error);
      });
    },
    flush() {
      flushing ??= flushOnce().finally(() => {
        flushing = null;
      });
      return flushing;
    },
  };
}
