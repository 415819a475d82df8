/**
 * Field rules for what crosses the tab–broker boundary. A rule checks a value and returns what the
 * broker uses; the TypeScript type of that output is inferred from the rule, so the compiler checks
 * the rules against `BrokerApi`. Each rule says what it wants without echoing the value it got (a
 * failed rule on a password must not put the password in an error message), and every object rule
 * is strict: an unknown field is a typo worth hearing about, and only the fields named here reach
 * the broker (a fresh object: no prototype keys, nothing extra).
 *
 * Our own, rather than a validation library: the broker needs a handful of rules, checked on every
 * call, and the worker script ships them to every browser (a library's general machinery cost
 * about 2.5 kB min+gzip of it, and most of a cached read's checking time).
 */
import { InvalidArgumentError } from '../protocol/errors/errors.js';
import type { Json } from '../protocol/resources/common.js';

/** A rule: returns the value to use, or throws a `RuleFailure` saying what is wrong and where. */
export interface Rule<T> {
  readonly parse: (value: unknown) => T;
  /** Set by `optional`: an object may leave the field out. */
  readonly isOptional?: true;
  /** Set by `optional` with a fallback: the parsed object always has the field. */
  readonly hasFallback?: true;
}

/** What a rule returns. */
export type Output<R> = R extends Rule<infer T> ? T : never;

/** One step after a rule: a check (returns the value as is) or a transformation. Throws `RuleFailure`. */
export type Step<A, B> = (value: A) => B;

/** Why a value was refused; `path` leads from the value checked to the part at fault. */
export class RuleFailure {
  constructor(
    readonly message: string,
    readonly path: Array<string | number> = [],
  ) {}
}

const fail = (message: string): never => {
  throw new RuleFailure(message);
};

const rule = <T>(parse: (value: unknown) => T): Rule<T> => ({ parse });

// ── building blocks ──────────────────────────────────────────────────────────────────────────

export const unknown = (): Rule<unknown> => rule((value) => value);
export const string = (message = 'must be a string'): Rule<string> =>
  rule((value) => (typeof value === 'string' ? value : fail(message)));
export const number = (message = 'must be a number'): Rule<number> =>
  rule((value) => (typeof value === 'number' && !Number.isNaN(value) ? value : fail(message)));
export const boolean = (message = 'must be true or false'): Rule<boolean> =>
  rule((value) => (typeof value === 'boolean' ? value : fail(message)));
export const literal = <const T extends string | number | boolean>(expected: T, message: string): Rule<T> =>
  rule((value) => (value === expected ? expected : fail(message)));
export const picklist = <const T extends readonly string[]>(values: T, message: string): Rule<T[number]> =>
  rule((value) => ((values as readonly unknown[]).includes(value) ? (value as T[number]) : fail(message)));
export const instance = <T>(type: abstract new (...args: never[]) => T, message: string): Rule<T> =>
  rule((value) => (value instanceof type ? value : fail(message)));
/** A value `accepts` says is a T (kept as is). */
export const custom = <T>(accepts: (value: unknown) => boolean, message: string): Rule<T> =>
  rule((value) => (accepts(value) ? (value as T) : fail(message)));

/** An array of values of `item`, copied; a failure's path names the index. */
export function array<T>(item: Rule<T>, message = 'must be an array'): Rule<T[]> {
  return rule((value) => {
    if (!Array.isArray(value)) fail(message);
    return (value as unknown[]).map((element, index) => within(index, item, element));
  });
}

/** The field may be absent (or undefined); `fallback` is used then, if given. */
export function optional<T>(inner: Rule<T>): Rule<T | undefined> & { isOptional: true };
export function optional<T>(inner: Rule<T>, fallback: T): Rule<T> & { isOptional: true; hasFallback: true };
export function optional<T>(inner: Rule<T>, fallback?: T): Rule<T | undefined> {
  return {
    parse: (value) => (value === undefined ? fallback : inner.parse(value)),
    isOptional: true,
    ...(fallback === undefined ? {} : { hasFallback: true }),
  };
}

export const nullable = <T>(inner: Rule<T>): Rule<T | null> =>
  rule((value) => (value === null ? null : inner.parse(value)));

type Entries = Record<string, Rule<unknown>>;
type Flatten<T> = { [K in keyof T]: T[K] } & {};
type MayBeLeftOut<R> = R extends { isOptional: true } ? (R extends { hasFallback: true } ? false : true) : false;
type FieldsOutput<E extends Entries> = Flatten<
  { -readonly [K in keyof E as MayBeLeftOut<E[K]> extends true ? never : K]: Output<E[K]> } & {
    -readonly [K in keyof E as MayBeLeftOut<E[K]> extends true ? K : never]?: Output<E[K]>;
  }
>;

/**
 * An object with exactly these fields (each may be optional), checked in order, as a fresh object.
 * A field given as undefined stays in the copy (undefined); an unknown field is refused.
 */
export function fields<const E extends Entries>(entries: E): Rule<FieldsOutput<E>> {
  const names = Object.keys(entries);
  return rule((value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('must be an object');
    const input = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const name of names) {
      const present = Object.hasOwn(input, name);
      if (!present && !entries[name]!.isOptional) throw new RuleFailure('is required', [name]);
      const parsed = within(name, entries[name]!, input[name]);
      if (parsed !== undefined || present) out[name] = parsed;
    }
    for (const name of Object.keys(input)) {
      if (!Object.hasOwn(entries, name)) throw new RuleFailure('is not a known field', [name]);
    }
    return out as FieldsOutput<E>;
  });
}

/** Runs `inner` on a part of a value; a failure's path starts with that part's key. */
function within<T>(key: string | number, inner: Rule<T>, value: unknown): T {
  try {
    return inner.parse(value);
  } catch (error) {
    if (error instanceof RuleFailure) error.path.unshift(key);
    throw error;
  }
}

/** A rule followed by steps (checks and transformations), in order. */
export function pipe<A, B>(first: Rule<A>, s1: Step<A, B>): Rule<B>;
export function pipe<A, B, C>(first: Rule<A>, s1: Step<A, B>, s2: Step<B, C>): Rule<C>;
export function pipe<A, B, C, D>(first: Rule<A>, s1: Step<A, B>, s2: Step<B, C>, s3: Step<C, D>): Rule<D>;
export function pipe(first: Rule<unknown>, ...steps: Array<Step<unknown, unknown>>): Rule<unknown> {
  return rule((value) => steps.reduce((current, step) => step(current), first.parse(value)));
}

export const check =
  <T>(accepts: (value: T) => boolean, message: string): Step<T, T> =>
  (value) =>
    accepts(value) ? value : fail(message);
export const transform =
  <A, B>(change: (value: A) => B): Step<A, B> =>
  (value) =>
    change(value);
export const maxLength = <T extends { length: number }>(
  max: number,
  message = `must be at most ${max} characters`,
): Step<T, T> => check((value: T) => value.length <= max, message);
export const minLength = <T extends { length: number }>(min: number, message: string): Step<T, T> =>
  check((value: T) => value.length >= min, message);
export const regex = (pattern: RegExp, message: string): Step<string, string> =>
  check((value: string) => pattern.test(value), message);

// ── the vocabulary of the contract ───────────────────────────────────────────────────────────

/**
 * Longer than any field the service accepts (the largest, a profile image data URL, is capped at
 * 1,000,000 characters): such a string could only fail later, after a request, or not at all.
 */
export const MAX_STRING_LENGTH = 1_048_576;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const text = () => pipe(string(), maxLength(MAX_STRING_LENGTH));
export const nonEmpty = () =>
  pipe(
    text(),
    check((s) => s.trim() !== '', 'must not be empty'),
  );
/** A path segment chosen by the caller (provider id, permission id, template type…). */
export const segment = () => pipe(nonEmpty(), maxLength(200));
export const uuid = () => pipe(string('must be a UUID string'), regex(UUID, 'must be a UUID'));
/** A user id: a UUID, or `me` for the signed-in user. */
export const userId = () =>
  pipe(
    string(),
    check((s) => s === 'me' || UUID.test(s), 'must be a UUID or "me"'),
  );
export const absoluteUrl = () => pipe(nonEmpty(), check(isAbsoluteUrl, 'must be an absolute URL'));
export const bool = () => boolean();
export const finiteNumber = () =>
  pipe(
    number(),
    check((n: number) => Number.isFinite(n), 'must be a finite number'),
  );
export const stringList = () => array(text(), 'must be an array of strings');
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  picklist(values, `must be one of ${values.join(', ')}`);
/** Free-form JSON the app stores (metadata): copied, so the broker holds its own plain data. */
export const json = () =>
  pipe(
    custom<Json>(isJson, 'must be JSON data'),
    transform((value: Json) => JSON.parse(JSON.stringify(value)) as Json),
  );

export function isAbsoluteUrl(value: string): boolean {
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

// ── arguments ────────────────────────────────────────────────────────────────────────────────

type Named = readonly [name: string, rule: Rule<unknown>];

/** A method's positional arguments, parsed and copied. */
export interface ArgumentList<T extends readonly unknown[]> {
  readonly names: readonly string[];
  parse(method: string, values: readonly unknown[]): T;
}

/** Names and rules for a method's arguments, in order; trailing ones may be optional. */
export function args<const A extends readonly Named[]>(
  ...list: A
): ArgumentList<{ -readonly [K in keyof A]: Output<A[K][1]> }> {
  return {
    names: list.map(([name]) => name),
    parse(method, values) {
      if (values.length > list.length) throw tooManyArguments(method, list.length, values.length);
      return list.map(([name, argument], i) => parseValue(method, name, argument, values[i])) as never;
    },
  };
}

/** A call with more arguments than its method takes. */
export function tooManyArguments(method: string, max: number, got: number): InvalidArgumentError {
  return new InvalidArgumentError(
    'arguments',
    `${method} takes ${max === 0 ? 'no arguments' : `at most ${max} argument${max === 1 ? '' : 's'}`}, got ${got}.`,
  );
}

/** Parses one value; a failure becomes an InvalidArgumentError naming the field. */
export function parseValue<T>(method: string, name: string, argument: Rule<T>, value: unknown): T {
  try {
    return argument.parse(value);
  } catch (error) {
    if (!(error instanceof RuleFailure)) throw error;
    const path = [name, ...error.path].join('.');
    throw new InvalidArgumentError(path, `${method}: ${path} ${error.message}.`);
  }
}
