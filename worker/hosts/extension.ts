/**
 * The broker hosted in a browser extension's background: Chromium's MV3 service worker or
 * Firefox's MV3 background scripts (an event page). One broker for every context of the
 * extension: its pages (popup, side panel, options) and content scripts connect over
 * `runtime.connect` ports, which need nothing registered, and the background itself calls the
 * broker in place. The broker is the one `createBroker` makes for every host; the ports carry the
 * broker's own wire messages (`contract/wire.ts`) as JSON, served by the same strict RPC server.
 *
 * The background may be stopped whenever it is idle (30 s in Chromium) and started again by the
 * next event: the host registers its listener synchronously, at the first run of the script, and
 * starts the broker at once, which reads the session back from storage on every start.
 */
import type { BrokerApi, TabHello, TabListener } from '../../contract/api.js';
import { DELIVER, type DeliverMessage } from '../../contract/wire.js';
import {
  extensionOriginOf,
  type ExtensionApi,
  type ExtensionConnected,
  type RuntimePort,
} from '../../contract/webExtension.js';
import { ClientError, InvalidArgumentError } from '../../protocol/errors/errors.js';
import { createBroker, type Broker } from '../broker.js';
import { brokerKeyOf, type BrokerConfig } from '../config.js';
import type { BrokerHostOptions } from '../hostOptions.js';
import { serveMethods } from '../rpc/server.js';
import { createExtensionSessionStorage } from '../storage/extensionSession.js';
import { createIndexedDbStorage } from '../storage/indexedDb.js';
import { createMemoryStorage } from '../storage/memory.js';
import type { BrokerStorage } from '../storage/types.js';
import { heldAwake, keepAwake, type KeepAwake } from './extensionAwake.js';
import { classifyPort, servedPort, type ExtensionContextKind } from './extensionPorts.js';
import { staticParts } from './staticParts.js';

/** Where an extension's broker keeps the session: IndexedDB on the extension's origin, or `storage.session`. */
export type ExtensionTokenStore = 'indexeddb' | 'session';

/** What content scripts may do, when the extension lets them connect at all. */
export interface ContentScriptAccess {
  /** Sign the person out from a content script. Default true. */
  signOut?: boolean;
  /**
   * Hand content scripts an access token (`getAccessToken`): they run in web pages, so only if the extension needs it.
   * Default false.
   */
  accessToken?: boolean;
}

type Method = (...args: unknown[]) => unknown;

export interface ExtensionHostOptions {
  /** The broker's config; the pages that connect must ask for the same service and project. */
  config: BrokerConfig;
  tokenStore: ExtensionTokenStore;
  /** Whether content scripts may connect, and what they may call; false (the default) refuses them. */
  contentScripts: false | ContentScriptAccess;
  extension: ExtensionApi;
  /** Methods of the extension's own besides the broker's, served to its pages only (the web auth flow). */
  pageMethods?: Record<string, Method>;
  /** The runtime's facilities, replaceable in tests. */
  host?: Omit<BrokerHostOptions, 'mode'>;
}

export interface ExtensionHost {
  /** The broker, started when the host was (at every start of the background). */
  readonly broker: Promise<Broker>;
  /** The background's own connection, in place. */
  connectInContext(hello: TabHello, listener: TabListener, onRelease?: () => void): Promise<BrokerApi>;
  /** The contexts connected over ports now, by kind. */
  connected(): Record<ExtensionContextKind, number>;
  /** Runs work the background must not be stopped during (the web-auth flow): see extensionAwake.ts. */
  keepAwake: KeepAwake;
}

/** What content scripts may ask for: the signed-in user and the session's state. */
const CONTENT_SCRIPT_QUERY_KINDS = new Set(['currentUser', 'session']);

function queryAllowed(query: unknown): boolean {
  return (
    typeof query === 'object' &&
    query !== null &&
    CONTENT_SCRIPT_QUERY_KINDS.has((query as { kind?: unknown }).kind as string)
  );
}

function refusedQuery(): ClientError {
  return new ClientError(
    'EXTENSION_CONTEXT_REFUSED',
    'Content scripts may only read the signed-in user (currentUser) and the session.',
  );
}

/**
 * The reduced API a content script gets: the user, the session's state, and what the extension
 * opened to them. The whole API is never handed over: content scripts run in web pages, whose
 * bugs (or a compromised renderer) reach them.
 */
function contentScriptMethods(api: BrokerApi, access: ContentScriptAccess): Record<string, Method> {
  const methods: Record<string, Method> = {
    subscribe: (id, query) =>
      queryAllowed(query) ? api.subscribe(id as string, query as never) : Promise.reject(refusedQuery()),
    unsubscribe: (id) => api.unsubscribe(id as string),
    read: (query) => (queryAllowed(query) ? api.read(query as never) : Promise.reject(refusedQuery())),
    goodbye: () => api.goodbye(),
  };
  if (access.signOut !== false) methods.signOut = () => api.signOut();
  if (access.accessToken === true) methods.getAccessToken = () => api.getAccessToken();
  return methods;
}

/** Methods that need a callback URL, and the error when the extension gave no https page for e-mail links. */
const EMAIL_LINK_METHODS = new Set([
  'signUpWithPassword',
  'sendMagicLink',
  'sendPasswordResetEmail',
  'sendContactChannelVerification',
  'inviteToTeam',
]);

/**
 * An extension's own pages are `chrome-extension://` (`moz-extension://`) URLs, which no e-mail
 * link can open and the service does not trust: without an https handler base (the extension's
 * website) a call that would send one fails here, saying what to give, rather than at the service
 * with REDIRECT_URL_NOT_WHITELISTED.
 */
function withoutEmailLinkDefaults(api: BrokerApi): BrokerApi {
  const refuse = (method: string) =>
    new InvalidArgumentError(
      'callbackUrl',
      `${method}: an extension's own pages cannot be opened from an e-mail. Pass handlerBaseUrl (an https site of yours the project trusts) to the extension's client, or a callbackUrl to this call.`,
    );
  const wrapped = Object.create(null) as Record<string, Method>;
  for (const name of Object.keys(api)) {
    const method = (api as unknown as Record<string, Method>)[name]!;
    wrapped[name] = !EMAIL_LINK_METHODS.has(name)
      ? method
      : (...args: unknown[]) => {
          const input = args[0] as Record<string, unknown> | undefined;
          const given =
            name === 'sendContactChannelVerification'
              ? args[1]
              : name === 'signUpWithPassword'
                ? input?.verificationCallbackUrl
                : input?.callbackUrl;
          // Sign-up without a link still signs up; the verification e-mail is what cannot be sent.
          if (given === undefined && name !== 'signUpWithPassword') return Promise.reject(refuse(name));
          return method(...args);
        };
  }
  return wrapped as unknown as BrokerApi;
}

/**
 * The broker's storage for this extension. `session`: `storage.session` for the session, IndexedDB
 * for OAuth flows. Whichever is chosen, a session the other one holds for the same slots (left by
 * an earlier version of the extension that chose differently) is deleted: there is one session.
 */
async function extensionStorage(
  options: ExtensionHostOptions,
  warn: (warning: string) => void,
): Promise<BrokerStorage> {
  const durable = await (async () => {
    const given = options.host?.storage;
    if (given !== undefined) return typeof given === 'function' ? given() : given;
    try {
      return await createIndexedDbStorage();
    } catch {
      warn(
        'IndexedDB is not available on the extension’s origin: OAuth flows are kept in memory until the background stops.',
      );
      return createMemoryStorage();
    }
  })();
  const area = options.extension.storage?.session;
  const slots = [brokerKeyOf(options.config), `admin:${brokerKeyOf(options.config)}`];
  if (options.tokenStore === 'session') {
    if (area === undefined)
      throw new ClientError(
        'STORAGE_UNAVAILABLE',
        'tokenStore: \'session\' needs storage.session (Chromium 102 or later, Firefox 115 or later, and the "storage" permission in the manifest).',
      );
    for (const slot of slots) {
      const stored = await durable.loadSession(slot).catch(() => null);
      if (stored?.status === 'active') await durable.removeSession(slot, stored.sessionKey).catch(() => false);
    }
    return createExtensionSessionStorage(area, durable);
  }
  if (area !== undefined) await area.remove(slots.map((slot) => `authbroker:session:${slot}`)).catch(() => undefined);
  return durable;
}

/**
 * The backgrounds (their `runtime`) that host a broker already, kept on the global under a
 * registered symbol so that two copies of this module in one bundle see the same set.
 */
const HOSTING = Symbol.for('authbroker.extensionHost');

/**
 * One broker per background: a second would answer every page's calls too (each sign-in made
 * twice, two brokers writing one session). Refused, saying so, before it registers anything.
 */
function claimBackground(runtime: object): void {
  const g = globalThis as { [HOSTING]?: WeakSet<object> };
  const hosting = (g[HOSTING] ??= new WeakSet());
  if (hosting.has(runtime)) {
    throw new ClientError(
      'BROKER_UNAVAILABLE',
      'startExtensionBroker was already called in this background: call it once, at the top level of the background script, and share the client it returns.',
    );
  }
  hosting.add(runtime);
}

/**
 * Starts the broker in the extension's background and serves the extension's contexts. Call it
 * at the top level of the background script, synchronously: an MV3 background's listeners must be
 * registered in the first run of its script, or the event that woke it is lost.
 */
export function hostExtensionBroker(options: ExtensionHostOptions): ExtensionHost {
  const runtime = options.extension.runtime;
  const extensionId = runtime.id;
  if (extensionId === undefined)
    throw new ClientError(
      'BROKER_UNAVAILABLE',
      'The extension host runs in an extension’s background: runtime.id is missing.',
    );
  claimBackground(runtime);
  const extensionOrigin = extensionOriginOf(runtime.getURL(''));
  const warnings: string[] = [];
  const broker = createBroker(options.config, {
    ...staticParts,
    ...options.host,
    mode: 'extension',
    storage: () => extensionStorage(options, (warning) => warnings.push(warning)),
  });
  void broker.then(
    (started) => warnings.forEach((warning) => started.parts.warnings.add(warning)),
    () => undefined,
  );
  const counts: Record<ExtensionContextKind, number> = { page: 0, 'content-script': 0 };
  // Every call a context makes is served with the background kept up (a port's message is no activity to Firefox).
  const awake = keepAwake(runtime);

  // Registered now, in the script's first run: the port that woke the background is delivered to it.
  runtime.onConnect.addListener((port) => servePort(port));

  function servePort(port: RuntimePort): void {
    const who = classifyPort(port, extensionId!, extensionOrigin);
    if (who === null) return;
    const served = servedPort(port);
    let release = () => undefined as void;
    port.onDisconnect.addListener(() => release());
    const stopEntry = serveMethods(served, {
      async connect(config: unknown, hello: unknown): Promise<ExtensionConnected> {
        if ('refused' in who) throw new ClientError('EXTENSION_CONTEXT_REFUSED', who.refused);
        if (who.kind === 'content-script' && options.contentScripts === false) {
          throw new ClientError(
            'EXTENSION_CONTEXT_REFUSED',
            'This extension does not let content scripts use its session: its background would pass contentScripts to startExtensionBroker.',
          );
        }
        if (served.closed) throw new ClientError('BROKER_CLOSED', 'The port closed while it was connecting.');
        const started = await broker;
        const listener: TabListener = {
          deliver: (batch) => served.postMessage({ type: DELIVER, batch } satisfies DeliverMessage, []),
        };
        // A port says when its context is gone (closed, navigated, crashed): no lifetime lock needed.
        const { lockName: _ignored, ...rest } = (typeof hello === 'object' && hello !== null ? hello : {}) as TabHello;
        const api = started.connectWithConfig(config, rest, listener, () => served.close());
        counts[who.kind] += 1;
        let released = false;
        release = () => {
          if (released) return;
          released = true;
          counts[who.kind] -= 1;
          void api.goodbye().catch(() => undefined);
        };
        if (served.closed) release();
        const methods =
          who.kind === 'content-script'
            ? contentScriptMethods(api, options.contentScripts as ContentScriptAccess)
            : { ...(helloHasHandlerUrls(rest) ? api : withoutEmailLinkDefaults(api)), ...options.pageMethods };
        stopEntry();
        serveMethods(served, heldAwake(methods as Record<string, Method>, awake));
        return { methods: Object.keys(methods) };
      },
    });
    if ('refused' in who) {
      // Answer the first call (connect) with the refusal, then let go of the port.
      port.onMessage.addListener(() => setTimeout(() => served.close(), 0));
    }
  }

  return {
    broker,
    async connectInContext(hello, listener, onRelease) {
      const api = (await broker).connect(hello, listener, onRelease);
      return heldAwake(helloHasHandlerUrls(hello) ? api : withoutEmailLinkDefaults(api), awake);
    },
    connected: () => ({ ...counts }),
    keepAwake: awake,
  };
}

function helloHasHandlerUrls(hello: TabHello): boolean {
  return hello.handlerUrls !== undefined;
}
