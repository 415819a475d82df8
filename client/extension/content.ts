/**
 * `authbroker/extension/content`: a content script's client of the broker in the extension's
 * background. Content scripts run inside web pages: their storage is the page's, so nothing is kept
 * there (no tokens, no copy of the user), and they get only what the background opens to them
 * (`startExtensionBroker`'s `contentScripts`): the signed-in user and the session's state, sign-out,
 * and an access token only if the extension opted in. The port reconnects by itself when the
 * background stops and starts again.
 *
 * @module authbroker/extension/content
 */
import type { DataOf } from '../../contract/queries.js';
import type { QuerySnapshot } from '../../contract/snapshot.js';
import { EXTENSION_CONTENT_PORT } from '../../contract/webExtension.js';
import { ClientError } from '../../protocol/errors/errors.js';
import type { User } from '../../protocol/models.js';
import { createClientOn } from '../createClientOn.js';
import {
  connectOptionsOf,
  NO_PASSKEYS_IN_EXTENSIONS,
  requireExtension,
  type ExtensionOptions,
} from './extensionOptions.js';
import { portConnection } from './portConnection.js';

/** What a content script may watch: the signed-in user (null when signed out), or the session's state. */
export type ContentScriptQuery = { kind: 'currentUser' } | { kind: 'session' };

/** A content script's client: a reduced method set, the one the extension's background chose. */
export interface ContentScriptClient {
  /** Watches the user or the session; the snapshot is then `getSnapshot`'s. Works with `useSyncExternalStore`. */
  subscribe(query: ContentScriptQuery, listener: () => void): () => void;
  /** What a watched query shows now: undefined until its first answer (or when nothing watches it). */
  getSnapshot<Q extends ContentScriptQuery>(query: Q): QuerySnapshot<DataOf<Q>> | undefined;
  /** The first settled snapshot of a query. */
  settled(query: ContentScriptQuery): Promise<QuerySnapshot>;
  /** The signed-in user, or null. */
  getUser(): Promise<User | null>;
  /**
   * Signs out everywhere (refused with EXTENSION_CONTEXT_REFUSED if the background keeps sign-out from content
   * scripts).
   */
  signOut(): Promise<void>;
  /**
   * An access token, or null when signed out: only if the background opted in (`contentScripts: { accessToken: true
   * }`), else EXTENSION_CONTEXT_REFUSED.
   */
  getAccessToken(): Promise<string | null>;
  /** Connects (if not yet) and resolves when the background answers; rejects if it refuses content scripts. */
  connect(): Promise<ContentScriptClient>;
  /** Releases the subscriptions and the port. */
  close(): void;
}

/** OAuth's steps do not run in a content script (its client offers none). */
const noOAuth = async (): Promise<never> => {
  throw new ClientError('BROKER_UNAVAILABLE', 'OAuth flows do not run in a content script.');
};

/**
 * The content script's client. Give it the same options as the extension's other contexts (the
 * background checks they name its service and project).
 */
export function createContentScriptClient(options: ExtensionOptions): ContentScriptClient {
  const extension = requireExtension('createContentScriptClient');
  // Nothing loads with import(): a content script is a classic script, whose relative import() would resolve against
  // the web page.
  const parts = {
    connection: async () => portConnection(extension, EXTENSION_CONTENT_PORT),
    oauth: noOAuth,
    ...NO_PASSKEYS_IN_EXTENSIONS,
  };
  const client = createClientOn(
    connectOptionsOf(options, { persistSnapshot: false }),
    { origin: null, ownStorage: false },
    parts,
  );
  const content: ContentScriptClient = {
    subscribe: (query, listener) => client.subscribe(query, listener),
    getSnapshot: (query) => client.getSnapshot(query),
    settled: (query) => client.settled(query),
    getUser: () => client.read({ kind: 'currentUser' }),
    signOut: () => client.signOut(),
    getAccessToken: () => client.getAccessToken(),
    connect: async () => {
      await client.connect();
      return content;
    },
    close: () => client.close(),
  };
  return content;
}
