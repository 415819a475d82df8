import * as Comlink from 'comlink';
import { AuthBrokerError, type SerializedError } from '../../protocol/errors/errors.js';
import { deserializeError, serializeError } from '../../protocol/errors/serialize.js';

type ThrowHandler = Comlink.TransferHandler<{ value: unknown }, { isError: boolean; value: unknown; authbroker?: SerializedError }>;

let installed = false;

/**
 * Comlink flattens thrown errors into plain `Error`s. Both sides install this handler so that our
 * errors arrive as the same classes, with code, details and status intact.
 */
export function installErrorTransfer(): void {
  if (installed) return;
  installed = true;
  const original = Comlink.transferHandlers.get('throw') as ThrowHandler;
  const handler: ThrowHandler = {
    canHandle: (value): value is { value: unknown } => original.canHandle(value),
    serialize(thrown) {
      if (thrown.value instanceof AuthBrokerError) return [{ isError: true, value: null, authbroker: serializeError(thrown.value) }, []];
      return original.serialize(thrown);
    },
    deserialize(serialized) {
      if (serialized.authbroker !== undefined) throw deserializeError(serialized.authbroker);
      return original.deserialize(serialized);
    },
  };
  Comlink.transferHandlers.set('throw', handler as Comlink.TransferHandler<unknown, unknown>);
}
