/**
 * One `runtime.Port` to the extension's background and the calls on it: the broker's own wire
 * messages (`contract/wire.ts`) as JSON (`contract/jsonWire.ts`), calls and their answers matched
 * by id, deliveries pushed. When the background stops (idle, or killed) the port disconnects and
 * the calls still waiting fail with BROKER_UNAVAILABLE (`portConnection.ts` then opens another).
 */
import type { Delivery } from '../../contract/api.js';
import { decodeFromJson, encodeForJson } from '../../contract/jsonWire.js';
import {
  DELIVER,
  type CallMessage,
  type DeliverMessage,
  type ReplyMessage,
  type ThrownValue,
} from '../../contract/wire.js';
import type { ExtensionApi, RuntimePort } from '../../contract/webExtension.js';
import type { TabErrors } from '../connect/brokerChannel.js';
import { unansweredError } from '../connect/askAgain.js';
import { callWindow } from '../connect/callWindow.js';

/** A call on a port whose background stopped before it answered (idle, killed, reloaded). */
const stoppedBeforeAnswering = (errors: TabErrors) =>
  unansweredError(errors, 'The extension’s background stopped before it answered. Try again.');

function thrownError(value: unknown, errors: TabErrors): Error {
  const thrown = value as Partial<ThrownValue> | null;
  if (thrown?.authbroker !== undefined) return errors.deserializeError(thrown.authbroker);
  const inner = thrown?.value as { message?: unknown } | undefined;
  return new Error(typeof inner?.message === 'string' ? inner.message : 'The extension’s background refused the call.');
}

/** An open port and its calls (exported for tests). */
export interface PortCalls {
  call(method: string, args: unknown[]): Promise<unknown>;
  lost: Promise<void>;
  close(): void;
}

/** Opens a port to the background (`portName`: which kind of context this is); what the broker delivers goes to `deliver`. */
export function openPort(
  extension: ExtensionApi,
  portName: string,
  deliver: (batch: Delivery) => void,
  errors: TabErrors,
): PortCalls {
  let port: RuntimePort;
  try {
    port = extension.runtime.connect({ name: portName });
  } catch (error) {
    // The extension was reloaded, updated or removed: this context belongs to its old version.
    throw new errors.ClientError(
      'BROKER_UNAVAILABLE',
      `The extension’s background cannot be reached (${error instanceof Error ? error.message : String(error)}): reload this page.`,
    );
  }
  const waiting = new Map<string, { resolve(value: unknown): void; reject(error: unknown): void }>();
  let closed = false;
  let markLost!: () => void;
  const lost = new Promise<void>((resolve) => (markLost = resolve));
  const gone = () => {
    if (closed) return;
    closed = true;
    for (const { reject } of waiting.values()) reject(stoppedBeforeAnswering(errors));
    waiting.clear();
    markLost();
  };
  port.onDisconnect.addListener(gone);
  port.onMessage.addListener((raw) => {
    let decoded: unknown;
    try {
      decoded = decodeFromJson(raw);
    } catch {
      return;
    }
    if (typeof decoded !== 'object' || decoded === null) return;
    const delivery = decoded as Partial<DeliverMessage>;
    if (delivery.type === DELIVER && Array.isArray(delivery.batch)) return deliver(delivery.batch);
    const message = decoded as Partial<ReplyMessage> & { name?: unknown; value?: unknown };
    const pending = typeof message.id === 'string' ? waiting.get(message.id) : undefined;
    if (pending === undefined) return;
    waiting.delete(message.id!);
    calls.answered(message.id!);
    if (message.type === 'RAW') pending.resolve(message.value);
    else if (message.type === 'HANDLER' && message.name === 'throw') pending.reject(thrownError(message.value, errors));
    else
      pending.reject(
        new errors.ProtocolError('The extension’s background answered with something that is not an answer.'),
      );
  });
  let lastId = 0;
  const calls = callWindow();
  return {
    call(method, args) {
      if (closed) return Promise.reject(stoppedBeforeAnswering(errors));
      const id = `${++lastId}`;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        const message: CallMessage = {
          id,
          type: 'APPLY',
          path: [method],
          argumentList: args.map((value) => ({ type: 'RAW', value }) as const),
        };
        calls.send(id, () => {
          // Gone while this call waited its turn: already failed with the others.
          if (closed) return false;
          try {
            port.postMessage(encodeForJson(message));
            return true;
          } catch (error) {
            // Not sent (a value JSON cannot carry, a message over the browser's limit): its own error,
            // never taken for a lost background, which would ask it again. A port whose background
            // went away takes messages and drops them; its onDisconnect fails them.
            waiting.delete(id);
            reject(error);
            return false;
          }
        });
      });
    },
    lost,
    close() {
      if (closed) return;
      gone();
      try {
        port.disconnect();
      } catch {
        // Already disconnected.
      }
    },
  };
}
