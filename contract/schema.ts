/**
 * Field rules for what crosses the tab–broker boundary, on valibot. Each rule says what it wants
 * without echoing the value it got (a failed rule on a password must not put the password in an
 * error message), and every object rule is strict: an unknown field is a typo worth hearing about,
 * and only the fields named here reach the broker (no prototype keys, nothing extra).
 */
import * as v from 'valibot';
import { InvalidArgumentError } from '../protocol/errors/errors.js';
import type { Json } from '../protocol/resources/common.js';

/**
 * Longer than any field the service accepts (the largest, a profile image data URL, is capped at
 * 1,000,000 characters): such a string could only fail later, after a request, or not at all.
 */
export const MAX_STRING_LENGTH = 1_048_576;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const text = () => v.pipe(v.string('must be a string'), v.maxLength(MAX_STRING_LENGTH, `must be at most ${MAX_STRING_LENGTH} characters`));
export const nonEmpty = () => v.pipe(text(), v.check((s) => s.trim() !== '', 'must not be empty'));
/** A path segment chosen by the caller (provider id, permission id, template type…). */
export const segment = () => v.pipe(nonEmpty(), v.maxLength(200, 'must be at most 200 characters'));
export const uuid = () => v.pipe(v.string('must be a UUID string'), v.regex(UUID, 'must be a UUID'));
/** A user id: a UUID, or `me` for the signed-in user. */
export const userId = () => v.pipe(v.string('must be a string'), v.check((s) => s === 'me' || UUID.test(s), 'must be a UUID or "me"'));
export const absoluteUrl = () => v.pipe(nonEmpty(), v.check(isAbsoluteUrl, 'must be an absolute URL'));
export const bool = () => v.boolean('must be true or false');
export const finiteNumber = () => v.pipe(v.number('must be a number'), v.finite('must be a finite number'));
export const stringList = () => v.array(text(), 'must be an array of strings');
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) => v.picklist(values, `must be one of ${values.join(', ')}`);
export const optional = v.optional;
export const nullable = v.nullable;
/** An object with exactly these fields (each may be optional). */
export const fields = <const E extends v.ObjectEntries>(entries: E) => v.strictObject(entries);
/** Free-form JSON the app stores (metadata): copied, so the broker holds its own plain data. */
export const json = () =>
  v.pipe(
    v.custom<Json>(isJson, 'must be JSON (null, booleans, finite numbers, strings, arrays and plain objects)'),
    v.transform((value) => JSON.parse(JSON.stringify(value)) as Json),
  );

function isAbsoluteUrl(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

function isJson(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJson);
  if (typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return false;
  return Object.entries(value).every(([key, inner]) => key !== '__proto__' && isJson(inner));
}

type Named = readonly [name: string, schema: v.GenericSchema];

/** A method's positional arguments, parsed and copied. */
export interface ArgumentList<T extends readonly unknown[]> {
  readonly names: readonly string[];
  parse(method: string, values: readonly unknown[]): T;
}

/** Names and rules for a method's arguments, in order; trailing ones may be optional. */
export function args<const A extends readonly Named[]>(...list: A): ArgumentList<{ -readonly [K in keyof A]: v.InferOutput<A[K][1]> }> {
  return {
    names: list.map(([name]) => name),
    parse(method, values) {
      if (values.length > list.length) {
        throw new InvalidArgumentError('arguments', `${method} takes ${list.length === 0 ? 'no arguments' : `at most ${list.length} argument${list.length === 1 ? '' : 's'}`}, got ${values.length}.`);
      }
      return list.map(([name, schema], i) => parseValue(method, name, schema, values[i])) as never;
    },
  };
}

/** Parses one value; the first problem becomes an InvalidArgumentError naming the field. */
export function parseValue<S extends v.GenericSchema>(method: string, name: string, schema: S, value: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const path = [name, ...(issue.path ?? []).map((item) => String((item as { key?: unknown }).key))].join('.');
  throw new InvalidArgumentError(path, `${method}: ${path} ${describeIssue(issue)}.`);
}

/** Object rules carry no message of their own (one would serve three cases): say which case it is. */
function describeIssue(issue: v.BaseIssue<unknown>): string {
  if (issue.type !== 'strict_object') return issue.message;
  if (issue.kind === 'schema' && issue.expected === 'never') return 'is not a known field';
  if (issue.kind === 'schema' && issue.expected?.startsWith('"')) return 'is required';
  return 'must be an object';
}
