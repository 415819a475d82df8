import type { KnownErrorDetails, KnownErrorInput } from './catalogue.js';
import { detailsShapeOf } from './details.js';
import { ProtocolError } from './errors.js';
import { KnownError, type AnyKnownError } from './knownError.js';
import { isKnownErrorCode, lineageOf, statusOf, type KnownErrorCode } from './lineage.js';
import { knownErrorMessages, renderTemplate, type MessageTemplate } from './messages.js';
import { pickShape, shapeMismatches } from './shape.js';

/**
 * Making and parsing known errors: for code that produces error bodies (the emulator) or reads them
 * off the wire (the broker). Code that only handles errors (the tab) needs knownError.ts alone.
 */

/** The JSON body of a known-error response (PROTOCOL.md §2.2); the message field is `error`. */
export interface KnownErrorBody {
  code: string;
  details?: Record<string, unknown>;
  error: string;
}

type CreateArgs<C extends KnownErrorCode> = keyof KnownErrorInput<C> extends never ? [] : [input: KnownErrorInput<C>];

/** Builds a known error with the service's message for it (the emulator uses it for every answer). */
export function createKnownError<C extends KnownErrorCode>(code: C, ...args: CreateArgs<C>): KnownError<C> {
  return knownErrorWithTemplate(code, knownErrorMessages[code] as MessageTemplate<C>, ...args);
}

/**
 * The same with the message template given, for code that raises only a few known errors itself
 * (the broker's checks): bundles then carry those templates, not all of them.
 */
export function knownErrorWithTemplate<C extends KnownErrorCode>(
  code: C,
  template: MessageTemplate<C>,
  ...args: CreateArgs<C>
): KnownError<C> {
  const shape = detailsShapeOf(code);
  const input = (args[0] ?? {}) as KnownErrorInput<C>;
  const details = shape === null ? undefined : pickShape(shape, input as Record<string, unknown>);
  return new KnownError(
    code,
    details as KnownErrorDetails<C>,
    renderTemplate(template, input),
    statusOf(code),
    lineageOf(code),
  );
}

function describe(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * Rebuilds a known error from a response body. Codes this version does not know (a newer service)
 * become `UNSUPPORTED_ERROR` carrying the original code, as the catalogue intends. A body that is
 * not a known-error body, or whose details do not match the catalogue, is a ProtocolError.
 */
export function knownErrorFromBody(body: unknown, status?: number): AnyKnownError {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ProtocolError(`Expected a known-error JSON object, got ${describe(body)}.`);
  }
  const record = body as Record<string, unknown>;
  const { code, error } = record;
  if (typeof code !== 'string' || code === '')
    throw new ProtocolError(`Known-error body has no code: ${describe(body)}.`);
  const message = typeof error === 'string' ? error : typeof record.message === 'string' ? record.message : code;
  if (!isKnownErrorCode(code)) {
    return new KnownError(
      'UNSUPPORTED_ERROR',
      { originalErrorCode: code },
      message,
      status ?? 500,
      lineageOf('UNSUPPORTED_ERROR'),
    ) as AnyKnownError;
  }
  const shape = detailsShapeOf(code);
  let details: Record<string, unknown> | undefined;
  if (shape !== null) {
    const missing = shapeMismatches(shape, record.details);
    if (missing.length > 0) {
      throw new ProtocolError(
        `Known error ${code} has unexpected details (${missing.join(', ')}): ${describe(record.details)}.`,
      );
    }
    details = pickShape(shape, record.details as Record<string, unknown>);
  }
  return new KnownError(code, details as never, message, status ?? statusOf(code), lineageOf(code)) as AnyKnownError;
}
