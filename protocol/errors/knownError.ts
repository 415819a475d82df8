import type { KnownErrorDetails } from './catalogue.js';
import type { KnownErrorCode, ParentOf } from './lineage.js';
import { AuthBrokerError, type SerializedError } from './errors.js';
import type { knownErrorFamilies, KnownErrorFamily } from './families.js';

/**
 * An error the service describes with a code from the catalogue (PROTOCOL.md §8). It carries its
 * own lineage (its code and the families above it), so that code which only handles errors, such as
 * the tab side, can match families without the catalogue. Create them with `createKnownError`.
 */
export class KnownError<C extends KnownErrorCode = KnownErrorCode> extends AuthBrokerError {
  override readonly name = 'KnownError';
  // Declared and assigned rather than parameter properties, which compile to both (bytes in every tab).
  declare readonly code: C;
  declare readonly details: KnownErrorDetails<C>;
  /** The HTTP status it came with. */
  declare readonly status: number;
  /** The code followed by its families, most specific first (see `lineageOf`). */
  declare readonly lineage: readonly string[];
  constructor(
    code: C,
    details: KnownErrorDetails<C>,
    message: string,
    status: number,
    lineage: readonly string[] = [code],
  ) {
    super(message);
    this.code = code;
    this.details = details;
    this.status = status;
    this.lineage = lineage;
  }

  /** The body the service sends for this error. */
  toWire(): { code: string; details?: Record<string, unknown>; error: string } {
    return this.details === undefined
      ? { code: this.code, error: this.message }
      : { code: this.code, details: { ...(this.details as Record<string, unknown>) }, error: this.message };
  }

  /** Its plain-data form, lineage included. */
  toJSON(): SerializedError {
    const base = {
      kind: 'known' as const,
      code: this.code,
      message: this.message,
      status: this.status,
      lineage: [...this.lineage],
    };
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

/** Whether `value` is a known error of the service (any code). */
export function isKnownError(value: unknown): value is AnyKnownError;
/**
 * Whether `value` is a known error of this code, or of a code in this family (`isKnownError(e,
 * 'INVALID_ACCESS_TOKEN')` matches `ACCESS_TOKEN_EXPIRED` too); narrows its type.
 */
export function isKnownError<F extends KnownErrorCode | KnownErrorFamily>(
  value: unknown,
  codeOrFamily: F,
): value is AnyKnownError<CodesIn<F>>;
export function isKnownError(value: unknown, codeOrFamily?: KnownErrorCode | KnownErrorFamily): boolean {
  if (!(value instanceof KnownError)) return false;
  return codeOrFamily === undefined || value.lineage.includes(codeOrFamily);
}
