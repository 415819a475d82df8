/**
 * A broker's sessions: the user's and, for a config with an `internal` key, the project owner's; and how the tabs'
 * subscriptions and the token grants follow them.
 */
import { messageOf } from '../../protocol/errors/errors.js';
import type { LazyTokenGrant } from '../lazy/refreshGrant.js';
import { Session } from '../session/session.js';
import type { Tabs } from '../tabs/tabs.js';
import { tokenEndpointOptions } from '../transports.js';
import type { Base } from './base.js';

/** The user's session and, for a config with an `internal` key, the project owner's; keyed by service and project. */
/** The user's session and the project owner's (null without an `internal` key). */
export interface Sessions {
  session: Session;
  adminSession: Session | null;
}

export function createSessions(base: Base, tokenGrant: LazyTokenGrant): Sessions {
  const { config, brokerKey, clock, connectivity, recording, warnings } = base;
  const network = { config, fetch: base.fetch, clock, connectivity };
  const newSession = (slot: string, tokenSlot: 'user' | 'admin') =>
    new Session({
      slot,
      storage: base.storage,
      bus: base.bus,
      locks: base.locks,
      clock,
      marginMillis: config.tokenMarginMillis,
      lockTimeoutMillis: base.host.lockTimeoutMillis,
      tokenEndpoint: tokenEndpointOptions({ ...network, observer: recording.refreshes(tokenSlot).observer }, tokenSlot),
      refreshAccessToken: tokenGrant.refreshAccessToken,
      onRefreshCall: recording.refreshes(tokenSlot).onRefreshCall,
      onStorageError: (error) =>
        warnings.add(`The session could not be saved (${messageOf(error)}): it ends with the broker.`),
      onWarning: (warning) => warnings.add(warning),
      onRefreshed: () => base.refreshed.emit(),
    });
  // The storage slot, and with it the refresh lock's name.
  const session = newSession(brokerKey, 'user');
  const adminSession =
    config.internalPublishableClientKey === undefined ? null : newSession(`admin:${brokerKey}`, 'admin');
  return { session, adminSession };
}

/**
 * Tabs' subscriptions follow each session to its new owner; a signed-in session's grants load ahead of need. Returns
 * the check the broker makes once its sessions have loaded.
 */
export function followSessions(
  { session, adminSession }: Sessions,
  tabs: Tabs,
  tokenGrant: LazyTokenGrant,
): () => void {
  session.subscribe(() => tabs.repoint('user'));
  adminSession?.subscribe(() => tabs.repoint('admin'));
  const prefetchGrantIfSignedIn = () => {
    if (session.state().status === 'signed-in' || adminSession?.state().status === 'signed-in')
      tokenGrant.prefetchSoon();
  };
  session.subscribe(prefetchGrantIfSignedIn);
  adminSession?.subscribe(prefetchGrantIfSignedIn);
  return prefetchGrantIfSignedIn;
}
