/**
 * A tiny runtime description of flat JSON objects, from which the static type is derived.
 * The error catalogue uses it so that every code's `details` is declared once and is both
 * checked at run time (when parsing a response) and typed at compile time.
 */
export type FieldKind =
  'string' | 'string|null' | 'number' | 'number|null' | 'boolean' | 'object' | 'string[]' | 'unknown[]';

export type Shape = { readonly [key: string]: FieldKind };

type FieldType<K extends FieldKind> = K extends 'string'
  ? string
  : K extends 'string|null'
    ? string | null
    : K extends 'number'
      ? number
      : K extends 'number|null'
        ? number | null
        : K extends 'boolean'
          ? boolean
          : K extends 'object'
            ? { [key: string]: unknown }
            : K extends 'string[]'
              ? string[]
              : unknown[];

export type ShapeType<S extends Shape> = { -readonly [K in keyof S]: FieldType<S[K]> };

function fieldMatches(kind: FieldKind, value: unknown): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'string|null':
      return value === null || typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'number|null':
      return value === null || (typeof value === 'number' && Number.isFinite(value));
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'string[]':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
    case 'unknown[]':
      return Array.isArray(value);
  }
}

/** Returns the names of the fields of `shape` that `value` lacks or has with the wrong type. */
export function shapeMismatches(shape: Shape, value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return Object.keys(shape);
  const record = value as Record<string, unknown>;
  return Object.entries(shape)
    .filter(([key, kind]) => !Object.hasOwn(record, key) || !fieldMatches(kind, record[key]))
    .map(([key]) => key);
}

/** Copies exactly the fields of `shape` out of `value` (which must already match). */
export function pickShape<S extends Shape>(shape: S, value: Record<string, unknown>): ShapeType<S> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) out[key] = value[key];
  return out as ShapeType<S>;
}
