import { describe, expect, it } from 'vitest';
import { decodeFromJson, encodeForJson, MAX_WIRE_DEPTH, WireFormatError } from '../../contract/jsonWire.js';

/** What Chromium does to an extension message: JSON there and back. */
const overJson = (value: unknown) => decodeFromJson(JSON.parse(JSON.stringify(encodeForJson(value))));

describe('the broker wire messages over JSON (runtime ports)', () => {
  it('keeps bytes, undefined in lists and non-finite numbers, which JSON alone would lose', () => {
    const call = {
      id: '1',
      type: 'APPLY',
      path: ['updateUser'],
      argumentList: [
        { type: 'RAW', value: { totpSecret: new Uint8Array([0, 1, 2, 250, 255]) } },
        { type: 'RAW', value: undefined },
      ],
    };
    const back = overJson(call) as { argumentList: Array<{ type: string; value?: { totpSecret: Uint8Array } }> };
    expect(back.argumentList[0]!.value!.totpSecret).toBeInstanceOf(Uint8Array);
    expect([...back.argumentList[0]!.value!.totpSecret]).toEqual([0, 1, 2, 250, 255]);
    expect(back.argumentList[1]).toEqual({ type: 'RAW' });
    expect(back.argumentList[1]!.value).toBeUndefined();
    expect(overJson([undefined, Number.NaN, Number.POSITIVE_INFINITY])).toEqual([
      undefined,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ]);
    // Without the encoding, JSON turns the bytes into an object of indexes and the undefined into null.
    expect(JSON.parse(JSON.stringify([new Uint8Array([1]), undefined]))).toEqual([{ 0: 1 }, null]);
  });

  it("an app's own object that has the tag's key stays data, and cannot pose as a tag", () => {
    const forged = { $ab: 'bytes', value: 'AAEC' };
    expect(overJson(forged)).toEqual(forged);
    expect(overJson({ nested: [forged] })).toEqual({ nested: [forged] });
  });

  it('refuses what it never makes and what is nested past any call the broker accepts', () => {
    expect(() => decodeFromJson({ $ab: 'function', value: 'x' })).toThrow(WireFormatError);
    expect(() => decodeFromJson({ $ab: 'bytes', value: '%%%' })).toThrow(WireFormatError);
    let deep: unknown = 1;
    for (let i = 0; i < MAX_WIRE_DEPTH + 5; i += 1) deep = [deep];
    expect(() => decodeFromJson(deep)).toThrow(/nested too deeply/);
    expect(() => encodeForJson(deep)).toThrow(/nested too deeply/);
    expect(() => encodeForJson({ port: new (class Port {})() })).toThrow(/plain data/);
    expect(() => encodeForJson(() => 1)).toThrow(WireFormatError);
  });

  it('a __proto__ key arrives as an own key, never as the prototype', () => {
    const decoded = decodeFromJson(JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(decoded, '__proto__')).toBe(true);
  });
});
