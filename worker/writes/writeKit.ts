/**
 * What the write queue (a lazy part) uses of the modules the broker's own chunk loads, handed to it rather than
 * imported: a chunk that imported them would make the bundler cut the broker's chunk into more files that every
 * broker loads up front (the recorder does the same, worker/diagnostics/kit.ts).
 */
import { openDB } from 'idb';
import { ClientError, HttpStatusError, InvalidArgumentError, NetworkError } from '../../protocol/errors/errors.js';
import { deserializeError, serializeError } from '../../protocol/errors/serialize.js';
import { camelize } from '../../protocol/models.js';

export const writeKit = {
  openDB,
  ClientError,
  HttpStatusError,
  InvalidArgumentError,
  NetworkError,
  serializeError,
  deserializeError,
  camelize,
};

export type WriteKit = typeof writeKit;
