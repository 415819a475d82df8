import { InvalidArgumentError } from './errors/errors.js';

/**
 * Argument checks for public functions. They only catch what is certainly wrong (a wrong type,
 * an empty id, a malformed UUID) so that a buggy caller gets a clear error and no request;
 * everything subtler is the service's to judge.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a value is a UUID as the service writes them (ids of users, teams, projects…). */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

export function requireString(value: unknown, argument: string): string {
  if (typeof value !== 'string')
    throw new InvalidArgumentError(argument, `${argument} must be a string, got ${describeType(value)}.`);
  return value;
}

export function requireNonEmptyString(value: unknown, argument: string): string {
  const text = requireString(value, argument);
  if (text.trim() === '') throw new InvalidArgumentError(argument, `${argument} must not be empty.`);
  return text;
}

export function requireUuid(value: unknown, argument: string): string {
  if (!isUuid(value))
    throw new InvalidArgumentError(argument, `${argument} must be a UUID, got ${describeValue(value)}.`);
  return value;
}

/** A user id: a UUID, or `me` for the signed-in user. */
export function requireUserId(value: unknown, argument = 'userId'): string {
  if (value === 'me' || isUuid(value)) return value;
  throw new InvalidArgumentError(argument, `${argument} must be a UUID or "me", got ${describeValue(value)}.`);
}

export function requireUrl(value: unknown, argument: string): string {
  const text = requireNonEmptyString(value, argument);
  try {
    new URL(text);
  } catch {
    throw new InvalidArgumentError(argument, `${argument} must be an absolute URL, got ${describeValue(text)}.`);
  }
  return text;
}

export function requireObject(value: unknown, argument: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidArgumentError(argument, `${argument} must be an object, got ${describeType(value)}.`);
  }
  return value as Record<string, unknown>;
}

export function optionalObject(value: unknown, argument: string): Record<string, unknown> | undefined {
  return value === undefined ? undefined : requireObject(value, argument);
}

export function requireBoolean(value: unknown, argument: string): boolean {
  if (typeof value !== 'boolean')
    throw new InvalidArgumentError(argument, `${argument} must be a boolean, got ${describeType(value)}.`);
  return value;
}

/** An options object of on/off switches (`{ allowAnonymous }`): an object, each named switch absent or a boolean. */
export function requireSwitches<K extends string>(
  value: unknown,
  argument: string,
  names: readonly K[],
): Partial<Record<K, boolean>> {
  const options = requireObject(value, argument);
  for (const name of names) if (options[name] !== undefined) requireBoolean(options[name], `${argument}.${name}`);
  return options as Partial<Record<K, boolean>>;
}

export function requirePositiveInteger(value: unknown, argument: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new InvalidArgumentError(argument, `${argument} must be a positive integer, got ${describeValue(value)}.`);
  }
  return value;
}

/** A path segment chosen by the caller (provider id, permission id, template type…). */
export function requireSegment(value: unknown, argument: string): string {
  const text = requireNonEmptyString(value, argument);
  if (text.length > 200)
    throw new InvalidArgumentError(argument, `${argument} is too long (${text.length} characters).`);
  return text;
}

export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}

export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  return describeType(value);
}

/** `encodeURIComponent` for path segments. */
export const seg = (value: string) => encodeURIComponent(value);
