/**
 * The broker's wire messages (calls, answers, deliveries) as JSON, for `runtime.Port`s: Chromium
 * sends extension messages as JSON, not structured clones, so a `Uint8Array` (`updateUser`'s
 * `totpSecret`) would arrive as `{"0": …}` and an `undefined` in a list as `null`. What JSON cannot
 * carry is tagged under the one key `$ab`; an object of the app's own that has that key is tagged
 * too, so nothing a caller sends can pose as a tag. Firefox clones structurally, where the same
 * encoding also works, so both browsers take one path.
 *
 * Decoding reads a message from another context (a content script's may come from a page the
 * user visits): it is bounded in depth and refuses tags it does not know; sizes are bounded after,
 * by the broker's plain-data pass like any call's.
 */

const TAG = '$ab';
/** Deeper than any call the broker accepts (64 levels, `contract/plainData.ts`) plus the message's own envelope. */
export const MAX_WIRE_DEPTH = 72;

export class WireFormatError extends Error {
  override readonly name = 'WireFormatError';
}

function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function base64ToBytes(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/**
 * A wire message as JSON-safe data. Throws WireFormatError for what has no JSON form (functions, ports, class
 * instances).
 */
export function encodeForJson(value: unknown, depth = 0): unknown {
  if (depth > MAX_WIRE_DEPTH) throw new WireFormatError('The message is nested too deeply.');
  if (value === undefined) return { [TAG]: 'undefined' };
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : { [TAG]: 'number', value: String(value) };
  if (typeof value !== 'object')
    throw new WireFormatError(`A ${typeof value} cannot be sent to another extension context.`);
  if (value instanceof Uint8Array) return { [TAG]: 'bytes', value: bytesToBase64(value) };
  if (Array.isArray(value)) return value.map((item) => encodeForJson(item, depth + 1));
  if (!isPlainObject(value)) throw new WireFormatError('Only plain data can be sent to another extension context.');
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    // An absent field and an undefined one mean the same to every rule; leaving it out keeps messages short.
    if (inner !== undefined) out[key] = encodeForJson(inner, depth + 1);
  }
  return Object.hasOwn(value, TAG) ? { [TAG]: 'object', value: out } : out;
}

/**
 * The inverse of `encodeForJson`, for a message from another context. Throws WireFormatError on what it never makes.
 */
export function decodeFromJson(value: unknown, depth = 0): unknown {
  if (depth > MAX_WIRE_DEPTH) throw new WireFormatError('The message is nested too deeply.');
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => decodeFromJson(item, depth + 1));
  const record = value as Record<string, unknown>;
  if (!Object.hasOwn(record, TAG)) return decodeEntries(record, depth);
  const kind = record[TAG];
  if (kind === 'undefined') return undefined;
  if (kind === 'number' && (record.value === 'NaN' || record.value === 'Infinity' || record.value === '-Infinity'))
    return Number(record.value);
  if (kind === 'bytes' && typeof record.value === 'string') {
    try {
      return base64ToBytes(record.value);
    } catch {
      throw new WireFormatError('Bytes in the message are not base64.');
    }
  }
  if (kind === 'object' && typeof record.value === 'object' && record.value !== null && !Array.isArray(record.value)) {
    return decodeEntries(record.value as Record<string, unknown>, depth);
  }
  throw new WireFormatError('The message holds a value this version cannot read.');
}

function decodeEntries(record: Record<string, unknown>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(record)) {
    // JSON.parse makes `__proto__` an own key; defining it keeps it one, never the prototype.
    Object.defineProperty(out, key, {
      value: decodeFromJson(inner, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
