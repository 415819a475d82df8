import type { KnownErrorCode } from './lineage.js';
import {
  AuthBrokerError,
  ClientError,
  HttpStatusError,
  InvalidArgumentError,
  messageOf,
  NetworkError,
  ProtocolError,
  type SerializedError,
} from './errors.js';
import { KnownError } from './knownError.js';

/** Plain-data form of any thrown value, so it can cross a structured-clone boundary intact. */
export function serializeError(error: unknown): SerializedError {
  if (error instanceof AuthBrokerError) return error.toJSON();
  const message = messageOf(error);
  return { kind: 'protocol', code: 'PROTOCOL_ERROR', message: `Unexpected failure: ${message}` };
}

function isSerializedError(value: unknown): value is SerializedError {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.kind === 'string' && typeof record.code === 'string' && typeof record.message === 'string';
}

/** Rebuilds the error class that `serializeError` flattened. */
export function deserializeError(value: unknown): AuthBrokerError {
  if (!isSerializedError(value)) return new ProtocolError(`Received a malformed error: ${String(value)}`);
  switch (value.kind) {
    case 'known':
      // The lineage travels with the error, so the receiving side needs no catalogue to match
      // families. Without one the data did not come from serializeError: its code is not trusted.
      if (
        !Array.isArray(value.lineage) ||
        value.lineage[0] !== value.code ||
        !value.lineage.every((item) => typeof item === 'string')
      ) {
        return new KnownError('UNSUPPORTED_ERROR', { originalErrorCode: value.code }, value.message, value.status, [
          'UNSUPPORTED_ERROR',
        ]);
      }
      return new KnownError(
        value.code as KnownErrorCode,
        value.details as never,
        value.message,
        value.status,
        value.lineage,
      );
    case 'http-status':
      return new HttpStatusError(value.status, value.body, value.message);
    case 'protocol':
      return new ProtocolError(value.message);
    case 'network':
      return new NetworkError(value.code, value.message, value.diagnostics, value.attempts);
    case 'invalid-argument':
      return new InvalidArgumentError(value.argument, value.message);
    case 'client':
      return new ClientError(value.code, value.message);
  }
}
