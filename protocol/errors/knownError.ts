import {
  catalogueEntry,
  isKnownErrorCode,
  knownErrorCatalogue,
  knownErrorCodes,
  type KnownErrorCode,
  type KnownErrorDetails,
  type KnownErrorInput,
  type ParentOf,
} from './catalogue.js';
import { AuthBrokerError, ProtocolError, type SerializedError } from './errors.js';
import { knownErrorFamilies, type KnownErrorFamily } from './families.js';
import { knownErrorMessages, renderTemplate, type MessageTemplate } from './messages.js';
import { pickShape, shapeMismatches } from './shape.js';

/** The JSON body of a known-error response (PROTOCOL.md §2.2); the message field is `error`. */
export interface KnownErrorBody {
  code: string;
  details?: Record<string, unknown>;
  error: string;
}

/** An error the service describes with a code from the catalogue (PROTOCOL.md §8). */
export class KnownError<C extends KnownErrorCode = KnownErrorCode> extends AuthBrokerError {
  override readonly name = 'KnownError';
  constructor(
    readonly code: C,
    readonly details: KnownErrorDetails<C>,
    message: string,
    /** The HTTP status it came with (the catalogue's status unless the wire said otherwise). */
    readonly status: number = knownErrorCatalogue[code].status,
  ) {
    super(message);
  }

  /** The body the service sends for this error. */
  toWire(): KnownErrorBody {
    return this.details === undefined
      ? { code: this.code, error: this.message }
      : { code: this.code, details: { ...(this.details as Record<string, unknown>) }, error: this.message };
  }

  toJSON(): SerializedError {
    const base = { kind: 'known' as const, code: this.code, message: this.message, status: this.status };
    return this.details === undefined ? base : { ...base, details: this.details };
  }
}

/** Any known error, as a union discriminated by `code` so that `switch (e.code)` narrows `details`. */
export type AnyKnownError<C extends KnownErrorCode = KnownErrorCode> = C extends KnownErrorCode ? KnownError<C> : never;

type FamilyChain<F, Depth extends unknown[] = []> = F extends KnownErrorFamily
  ? Depth['length'] extends 8
    ? F
    : F | FamilyChain<(typeof knownErrorFamilies)[F], [...Depth, unknown]>
  : never;

/** A code together with every family above it. */
export type LineageOf<C extends KnownErrorCode> = C | FamilyChain<ParentOf<C>>;

/** The concrete codes that belong to a code or family. */
export type CodesIn<F extends KnownErrorCode | KnownErrorFamily> = {
  [C in KnownErrorCode]: F extends LineageOf<C> ? C : never;
}[KnownErrorCode];

/** A code followed by its families, most specific first. */
export function lineageOf(code: KnownErrorCode): Array<KnownErrorCode | KnownErrorFamily> {
  const chain: Array<KnownErrorCode | KnownErrorFamily> = [code];
  let family: KnownErrorFamily | null = catalogueEntry(code).parent;
  while (family !== null) {
    chain.push(family);
    family = knownErrorFamilies[family];
  }
  return chain;
}

/** Whether `code` is `codeOrFamily` or belongs to that family. */
export function codeBelongsTo(code: KnownErrorCode, codeOrFamily: KnownErrorCode | KnownErrorFamily): boolean {
  return lineageOf(code).includes(codeOrFamily);
}

export function isKnownError(value: unknown): value is AnyKnownError;
export function isKnownError<F extends KnownErrorCode | KnownErrorFamily>(value: unknown, codeOrFamily: F): value is AnyKnownError<CodesIn<F>>;
export function isKnownError(value: unknown, codeOrFamily?: KnownErrorCode | KnownErrorFamily): boolean {
  if (!(value instanceof KnownError)) return false;
  return codeOrFamily === undefined || codeBelongsTo(value.code, codeOrFamily);
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
export function knownErrorWithTemplate<C extends KnownErrorCode>(code: C, template: MessageTemplate<C>, ...args: CreateArgs<C>): KnownError<C> {
  const entry = catalogueEntry(code);
  const input = (args[0] ?? {}) as KnownErrorInput<C>;
  const details = entry.details === null ? undefined : pickShape(entry.details, input as Record<string, unknown>);
  return new KnownError(code, details as KnownErrorDetails<C>, renderTemplate(template, input), entry.status);
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
  if (typeof code !== 'string' || code === '') throw new ProtocolError(`Known-error body has no code: ${describe(body)}.`);
  const message = typeof error === 'string' ? error : typeof record.message === 'string' ? record.message : code;
  if (!isKnownErrorCode(code)) {
    return new KnownError('UNSUPPORTED_ERROR', { originalErrorCode: code }, message, status ?? 500) as AnyKnownError;
  }
  const entry = catalogueEntry(code);
  let details: Record<string, unknown> | undefined;
  if (entry.details !== null) {
    const missing = shapeMismatches(entry.details, record.details);
    if (missing.length > 0) {
      throw new ProtocolError(`Known error ${code} arrived with details that do not match the protocol (${missing.join(', ')}): ${describe(record.details)}.`);
    }
    details = pickShape(entry.details, record.details as Record<string, unknown>);
  }
  return new KnownError(code, details as never, message, status ?? entry.status) as AnyKnownError;
}

export { knownErrorCodes };
