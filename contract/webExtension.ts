/**
 * The part of the WebExtension API (Chromium's `chrome.*`, Firefox's `browser.*`) the extension
 * host and its clients use, typed by hand: about a dozen members, where `@types/chrome` would add
 * the whole Chrome API as an ambient global to every layer that names one of its types, and say
 * nothing about Firefox's `browser` (see ARCHITECTURE.md, *Dependencies*). Shared by the broker's
 * host (worker/hosts/extension.ts) and the clients (client/extension/), hence here.
 */

/** An event of the extension API (`port.onMessage`, `runtime.onConnect`). */
export interface ExtensionEvent<L> {
  addListener(listener: L): void;
  removeListener(listener: L): void;
}

/** Who opened a port: only the fields the host reads. */
export interface PortSender {
  /** The extension the sender belongs to. */
  id?: string | undefined;
  /** The sender's document (an extension page's `chrome-extension://…`, a content script's web page). */
  url?: string | undefined;
  /** Chromium: the sender frame's origin. */
  origin?: string | undefined;
  /** Set for senders in a tab: content scripts, and extension pages opened as tabs. */
  tab?: { id?: number | undefined } | undefined;
}

/** A long-lived connection (`runtime.connect`). Messages are JSON in Chromium, structured clones in Firefox. */
export interface RuntimePort {
  readonly name: string;
  readonly sender?: PortSender | undefined;
  postMessage(message: unknown): void;
  disconnect(): void;
  readonly onMessage: ExtensionEvent<(message: unknown, port: RuntimePort) => void>;
  readonly onDisconnect: ExtensionEvent<(port: RuntimePort) => void>;
}

export interface ExtensionRuntime {
  /** This extension's id; undefined in a web page that only sees `chrome.runtime` for externally connectable sites. */
  readonly id?: string | undefined;
  getURL(path: string): string;
  connect(connectInfo?: { name?: string }): RuntimePort;
  readonly onConnect: ExtensionEvent<(port: RuntimePort) => void>;
  /**
   * A cheap call of the extension API: in a background, any such call counts as activity for the browser's idle timer.
   */
  getPlatformInfo?(): Promise<unknown>;
  /**
   * The manifest: where the background runs (`background.page`, or the page Firefox makes for `background.scripts`).
   */
  getManifest?(): { background?: { page?: string; scripts?: string[]; service_worker?: string } };
}

/** `storage.session` (and the other areas, which the broker never uses for tokens). */
export interface ExtensionStorageArea {
  get(keys: string | string[] | null): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
  remove(keys: string | string[]): Promise<void>;
}

export interface ExtensionIdentity {
  /** Chromium: `https://<id>.chromiumapp.org/<path>`; Firefox: `https://<hash>.extensions.allizom.org/<path>`. */
  getRedirectURL(path?: string): string;
  /** Resolves with the URL the provider sent the browser back to. */
  launchWebAuthFlow(details: { url: string; interactive?: boolean }): Promise<string | undefined>;
}

/** The extension API as the host and clients use it. */
export interface ExtensionApi {
  runtime: ExtensionRuntime;
  storage?: { session?: ExtensionStorageArea | undefined } | undefined;
  identity?: ExtensionIdentity | undefined;
}

/**
 * This extension's API: Firefox's promise-based `browser`, else Chromium's `chrome` (whose MV3
 * methods return promises too). Null outside an extension, including a web page that sees
 * `chrome.runtime` only because some extension made the site externally connectable (no `id` there).
 */
export function extensionApi(): ExtensionApi | null {
  const g = globalThis as { browser?: Partial<ExtensionApi>; chrome?: Partial<ExtensionApi> };
  for (const candidate of [g.browser, g.chrome]) {
    if (typeof candidate?.runtime?.id === 'string' && candidate.runtime.id !== '') return candidate as ExtensionApi;
  }
  return null;
}

/** The URL schemes of extensions' own pages. */
const EXTENSION_SCHEMES = new Set([
  'chrome-extension:',
  'moz-extension:',
  'safari-web-extension:',
  'ms-browser-extension:',
]);

/** Whether a URL (or origin) is an extension's own page, whichever browser. */
export function isExtensionUrl(url: string | undefined): boolean {
  if (url === undefined) return false;
  try {
    return EXTENSION_SCHEMES.has(new URL(url).protocol);
  } catch {
    return false;
  }
}

/**
 * An extension URL's origin, `scheme://host`. Worked out by hand: `URL.origin` is `"null"` for
 * these schemes outside browsers (Node), and the host is what names the extension.
 */
export function extensionOriginOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}

/**
 * Whether code runs in a content script: the extension's API is there but the document is a web
 * page (in an extension's own pages and its background, `location` is the extension's).
 */
export function inContentScript(): boolean {
  const extension = extensionApi();
  const href = (globalThis as { location?: { href?: string } }).location?.href;
  return extension !== null && href !== undefined && !href.startsWith(extension.runtime.getURL(''));
}

/** The names of the ports extension contexts open to the background. */
export const EXTENSION_PAGE_PORT = 'authbroker:extension-page';
export const EXTENSION_CONTENT_PORT = 'authbroker:content-script';

/** What the background's `connect` answers a port with: the methods that context may call. */
export interface ExtensionConnected {
  methods: string[];
}

/** Arguments of the web-auth-flow method extension pages call in the background (`launchOAuth`). */
export interface ExtensionOAuthInput {
  providerId: string;
  type?: 'authenticate' | 'link';
  scopes?: string[];
}
