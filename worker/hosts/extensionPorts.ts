/**
 * The extension host's side of a `runtime.Port`: who may open one (the sender check), and the port
 * as a `ServedPort`, so that the broker's one strict RPC server (`rpc/server.ts`) serves extension
 * contexts exactly as it serves tabs, over JSON (`contract/jsonWire.ts`).
 */
import { decodeFromJson, encodeForJson } from '../../contract/jsonWire.js';
import {
  EXTENSION_CONTENT_PORT,
  EXTENSION_PAGE_PORT,
  extensionOriginOf,
  isExtensionUrl,
  type RuntimePort,
} from '../../contract/webExtension.js';
import type { ServedPort } from '../rpc/server.js';

/** What opened a port: one of the extension's own pages, or a content script in a web page. */
export type ExtensionContextKind = 'page' | 'content-script';

/**
 * Whose port this is, or why it is refused; null for a port that is not the broker's (other code
 * of the extension may use runtime ports of its own). A port comes from this extension's own
 * contexts only if the browser says so (`sender.id`): `runtime.onConnect` never fires for web pages
 * or other extensions (those are `onConnectExternal`, which the host never listens to), and the
 * check holds even so. A content script may name its port as a page's: what decides is where its
 * document is (`sender.url`, `sender.origin`), which the browser sets, not the port's name.
 */
export function classifyPort(
  port: RuntimePort,
  extensionId: string,
  extensionOrigin: string,
): { kind: ExtensionContextKind } | { refused: string } | null {
  if (port.name !== EXTENSION_PAGE_PORT && port.name !== EXTENSION_CONTENT_PORT) return null;
  const sender = port.sender;
  if (sender?.id !== extensionId) return { refused: 'The port does not come from this extension.' };
  const where = sender.origin ?? sender.url;
  const ownPage = where !== undefined && isExtensionUrl(where) && extensionOriginOf(where) === extensionOrigin;
  if (ownPage) return { kind: 'page' };
  if (port.name === EXTENSION_PAGE_PORT)
    return {
      refused:
        'Only the extension’s own pages may connect as a page; content scripts use authbroker/extension/content.',
    };
  return { kind: 'content-script' };
}

/** A message listener as the RPC server adds it, and the port listener made for it. */
type Listener = (event: MessageEvent) => void;

/**
 * The port as the RPC server's `ServedPort`: messages in are decoded (a message that does not
 * decode is dropped, as the server drops what it cannot answer), messages out encoded. Transfers
 * do not exist on runtime ports; nothing the broker answers an extension context needs one.
 */
export function servedPort(
  port: RuntimePort,
  onUnreadable?: (error: unknown) => void,
): ServedPort & { closed: boolean; close(): void } {
  const listeners = new Map<Listener, (message: unknown) => void>();
  const served = {
    closed: false,
    postMessage(message: unknown) {
      if (served.closed) return;
      try {
        port.postMessage(encodeForJson(message));
      } catch {
        // The other side is gone (the port closed meanwhile): nobody is waiting for this.
      }
    },
    addEventListener(_type: 'message', listener: Listener) {
      const onMessage = (message: unknown) => {
        let data: unknown;
        try {
          data = decodeFromJson(message);
        } catch (error) {
          onUnreadable?.(error);
          return;
        }
        listener({ data } as MessageEvent);
      };
      listeners.set(listener, onMessage);
      port.onMessage.addListener(onMessage);
    },
    removeEventListener(_type: 'message', listener: Listener) {
      const onMessage = listeners.get(listener);
      if (onMessage !== undefined) port.onMessage.removeListener(onMessage);
      listeners.delete(listener);
    },
    close() {
      if (served.closed) return;
      served.closed = true;
      try {
        port.disconnect();
      } catch {
        // Already disconnected.
      }
    },
  };
  port.onDisconnect.addListener(() => (served.closed = true));
  return served;
}
