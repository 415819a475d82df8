/**
 * The first pass over everything a tab sends, before any rule of a method runs: plain data only,
 * and a bounded amount of it. One broker serves every tab of the origin, so the work one call can
 * cause is capped in proportion to what a real call sends, never to what a page can build: the
 * pass is linear in the values it meets and stops at the first limit (values, depth, characters).
 */
import { InvalidArgumentError } from '../protocol/errors/errors.js';
import { MAX_STRING_LENGTH } from './schema.js';

/** Deeper than any real input, metadata included; deeper values could exhaust the stack of later checks. */
export const MAX_ARGUMENT_DEPTH = 64;

/**
 * Values in one call's arguments (each primitive, array and object, counted every time it is
 * met, so a value shared a million times costs a million). Many times the largest real input
 * (a project's config or an e-mail template is hundreds); the checks and copies of this many take
 * a few milliseconds, where an unbounded structure could hold the broker, and every tab, for hours.
 */
export const MAX_ARGUMENT_VALUES = 20_000;

/**
 * Characters of every string and key of one call together: a profile image at the service's limit, with room for the
 * rest.
 */
export const MAX_ARGUMENT_CHARACTERS = 2 * MAX_STRING_LENGTH;

/** What one call may still spend; shared by all its arguments. */
interface Budget {
  values: number;
  characters: number;
}

/**
 * Checks a call's arguments: no `__proto__` key (structured clone keeps it as an own property,
 * which a later `out[key] = value` would turn into a prototype), no BigInt, symbol, function or
 * cycle, only plain objects, arrays and bytes (no class instances, ports or buffers where data is
 * expected), and within the limits above. `names` name the arguments in errors.
 */
export function checkPlainValues(method: string, values: readonly unknown[], names: readonly string[] = []): void {
  const budget: Budget = { values: MAX_ARGUMENT_VALUES, characters: MAX_ARGUMENT_CHARACTERS };
  for (let i = 0; i < values.length; i++)
    checkPlainValue(method, values[i], names[i] ?? `arguments[${i}]`, 0, [], budget);
}

/**
 * One value: a plain recursive function rather than a closure, since this runs on every call.
 * `ancestors` are the containers above it: a value shared by two fields is fine (it is counted
 * twice), a value inside itself is not.
 */
function checkPlainValue(
  method: string,
  value: unknown,
  path: string,
  depth: number,
  ancestors: object[],
  budget: Budget,
): void {
  if (--budget.values < 0) throw tooMuch(method, path, `more than ${MAX_ARGUMENT_VALUES} values`);
  if (typeof value === 'string') {
    if (value.length > MAX_STRING_LENGTH)
      throw new InvalidArgumentError(
        path,
        `${method}: ${path} is too long (${value.length} characters, at most ${MAX_STRING_LENGTH}).`,
      );
    spendCharacters(method, path, value.length, budget);
    return;
  }
  if (typeof value === 'bigint' || typeof value === 'symbol' || typeof value === 'function') {
    throw new InvalidArgumentError(
      path,
      `${method}: ${path} is a ${typeof value}, which no input can be (use numbers, strings, booleans, null, arrays and objects).`,
    );
  }
  if (typeof value !== 'object' || value === null) return;
  // Bytes (a TOTP secret) are a value, not a container.
  if (ArrayBuffer.isView(value)) {
    if (value.byteLength > MAX_STRING_LENGTH)
      throw new InvalidArgumentError(path, `${method}: ${path} is too large (${value.byteLength} bytes).`);
    spendCharacters(method, path, value.byteLength, budget);
    return;
  }
  const array = Array.isArray(value);
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (!array && prototype !== Object.prototype && prototype !== null) {
    throw new InvalidArgumentError(
      path,
      `${method}: ${path} must be plain data (an object literal, an array or a primitive).`,
    );
  }
  if (ancestors.includes(value))
    throw new InvalidArgumentError(path, `${method}: ${path} contains itself (a cycle), which no input can.`);
  if (depth >= MAX_ARGUMENT_DEPTH)
    throw new InvalidArgumentError(path, `${method}: ${path} is nested more than ${MAX_ARGUMENT_DEPTH} levels deep.`);
  // Refused before its keys are listed: listing five million indexes is the cost to avoid.
  if (array && (value as unknown[]).length > budget.values)
    throw tooMuch(method, path, `an array of ${(value as unknown[]).length} items`);
  const keys = Object.keys(value);
  if (keys.length > budget.values) throw tooMuch(method, path, `${keys.length} fields`);
  ancestors.push(value);
  for (const key of keys) {
    if (key === '__proto__')
      throw new InvalidArgumentError(
        `${path}.__proto__`,
        `${method}: ${path} has a "__proto__" key, which no input may have.`,
      );
    const inner = array ? `${path}[${key}]` : `${path}.${key}`;
    if (!array) spendCharacters(method, inner, key.length, budget);
    checkPlainValue(method, (value as Record<string, unknown>)[key], inner, depth + 1, ancestors, budget);
  }
  ancestors.pop();
}

function spendCharacters(method: string, path: string, count: number, budget: Budget): void {
  budget.characters -= count;
  if (budget.characters < 0) throw tooMuch(method, path, `more than ${MAX_ARGUMENT_CHARACTERS} characters in all`);
}

function tooMuch(method: string, path: string, what: string): InvalidArgumentError {
  return new InvalidArgumentError(
    path,
    `${method}: the arguments hold too much data (${what} by ${path}); no call of the broker needs that many.`,
  );
}
