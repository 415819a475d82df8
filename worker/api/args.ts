import { describeType, requireObject } from '../../protocol/args.js';
import { InvalidArgumentError } from '../../protocol/errors/errors.js';
import type { Json } from '../../protocol/resources/common.js';

/**
 * Longer than any field the service accepts (the largest, a profile image data URL, is capped at
 * 1,000,000 characters): such a string could only fail later, after a request, or not at all.
 */
export const MAX_ARGUMENT_STRING_LENGTH = 1_048_576;
/** Deeper than any real input, metadata included; deeper values could exhaust the stack of the JSON and case conversions. */
export const MAX_ARGUMENT_DEPTH = 64;

/**
 * Checks everything a tab sent, at every depth, before a method sees it: no oversized string, no
 * absurd nesting, no `__proto__` key (structured clone and JSON.parse keep it as an own property,
 * which a later `out[key] = value` would turn into a prototype), no BigInt, symbol, function or cycle
 * (JSON cannot carry them, and they would surface later as untyped errors).
 */
export function checkRpcArguments(method: string, args: readonly unknown[]): void {
  // Ancestors, not everything seen: a value shared by two fields is fine, a value inside itself is not.
  const ancestors = new Set<object>();
  const visit = (value: unknown, path: string, depth: number): void => {
    if (typeof value === 'string') {
      if (value.length > MAX_ARGUMENT_STRING_LENGTH) {
        throw new InvalidArgumentError(path, `${method}: ${path} is too long (${value.length} characters, at most ${MAX_ARGUMENT_STRING_LENGTH}).`);
      }
      return;
    }
    if (typeof value === 'bigint' || typeof value === 'symbol' || typeof value === 'function') {
      throw new InvalidArgumentError(path, `${method}: ${path} is a ${typeof value}, which no input can be (use numbers, strings, booleans, null, arrays and objects).`);
    }
    if (typeof value !== 'object' || value === null) return;
    if (ancestors.has(value)) throw new InvalidArgumentError(path, `${method}: ${path} contains itself (a cycle), which no input can.`);
    if (depth >= MAX_ARGUMENT_DEPTH) throw new InvalidArgumentError(path, `${method}: ${path} is nested more than ${MAX_ARGUMENT_DEPTH} levels deep.`);
    ancestors.add(value);
    const array = Array.isArray(value);
    for (const key of Object.keys(value)) {
      if (key === '__proto__') throw new InvalidArgumentError(`${path}.__proto__`, `${method}: ${path} has a "__proto__" key, which no input may have.`);
      visit((value as Record<string, unknown>)[key], array ? `${path}[${key}]` : `${path}.${key}`, depth + 1);
    }
    ancestors.delete(value);
  };
  args.forEach((arg, i) => visit(arg, `arguments[${i}]`, 0));
}

/** An input object with only `allowed` keys: a typo in a field name is a bug worth hearing about. */
export function requireInput(value: unknown, name: string, allowed: readonly string[]): Record<string, unknown> {
  const input = requireObject(value, name);
  for (const key of Object.keys(input)) {
    if (!allowed.includes(key)) throw new InvalidArgumentError(`${name}.${key}`, `${name} has no field "${key}" (expected: ${allowed.join(', ')}).`);
  }
  return input;
}

export function optionalString(value: unknown, argument: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InvalidArgumentError(argument, `${argument} must be a string, got ${describeType(value)}.`);
  return value;
}

export function optionalNullableString(value: unknown, argument: string): string | null | undefined {
  return value === null ? null : optionalString(value, argument);
}

export function optionalBoolean(value: unknown, argument: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw new InvalidArgumentError(argument, `${argument} must be a boolean, got ${describeType(value)}.`);
  return value;
}

/** Free-form JSON the app stores (metadata): it must survive a JSON round trip unchanged. */
export function optionalJson(value: unknown, argument: string): Json | undefined {
  if (value === undefined) return undefined;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    throw new InvalidArgumentError(argument, `${argument} must be JSON (no cycles, no BigInt).`);
  }
  if (text === undefined) throw new InvalidArgumentError(argument, `${argument} must be JSON, got ${describeType(value)}.`);
  return JSON.parse(text) as Json;
}

export function optionalStringArray(value: unknown, argument: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new InvalidArgumentError(argument, `${argument} must be an array of strings.`);
  return [...(value as string[])];
}
