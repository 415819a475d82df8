import { describeType, requireObject } from '../../protocol/args.js';
import { InvalidArgumentError } from '../../protocol/errors/errors.js';
import type { Json } from '../../protocol/resources/common.js';

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
