/**
 * What the recorder (this folder) uses of the broker's own modules, handed over by the broker
 * rather than imported. The recorder is a chunk loaded when a devtools panel first asks; a module
 * that it and the broker both imported would be split by esbuild into a third chunk, loaded up
 * front by every broker. `test/architecture/imports.test.ts` keeps this folder's run-time imports
 * inside it.
 */
import type { Emitter } from '../../contract/events.js';
import type { hashQueryKey } from '../../contract/queryKey.js';
import type { serializeError } from '../../protocol/errors/serialize.js';
import type { createTransport } from '../../protocol/transport.js';
import type { derivedValue } from '../cache/liveValue.js';

export interface RecorderKit {
  readonly Emitter: typeof Emitter;
  readonly createTransport: typeof createTransport;
  readonly derivedValue: typeof derivedValue;
  readonly hashQueryKey: typeof hashQueryKey;
  readonly serializeError: typeof serializeError;
  /** AUTHBROKER_VERSION. */
  readonly version: string;
}
