import { describe, expect, it } from 'vitest';
import { actionNames } from '../../contract/actions.js';
import { argumentRules, checkPlainData, parseArguments } from '../../contract/arguments.js';
import { isMethodName, methodNames, methodRoles } from '../../contract/methods.js';

describe('the contract lists each method once, in agreement', () => {
  it('every method has a role and argument rules, and the client’s actions are exactly the action role', () => {
    expect(Object.keys(argumentRules).sort()).toEqual([...methodNames].sort());
    expect([...actionNames].sort()).toEqual(methodNames.filter((name) => methodRoles[name] === 'action').sort());
  });

  it('only own names are methods: nothing inherited, nothing of Object', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '', 'connect'])
      expect(isMethodName(name), name).toBe(false);
    expect(isMethodName('signInWithPassword')).toBe(true);
  });

  it('parsing copies: only the named fields reach the method, and too many arguments are refused', () => {
    const input = { email: 'a@example.com', password: 'pw' };
    const [parsed] = parseArguments('signInWithPassword', [input]);
    expect(parsed).toEqual(input);
    expect(parsed).not.toBe(input);
    expect(() => parseArguments('signOut', [1])).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', argument: 'arguments' }),
    );
    expect(() => parseArguments('signInWithPassword', [{ ...input, admin: true }])).toThrow(
      expect.objectContaining({ argument: 'input.admin' }),
    );
  });

  it('error messages name the field and never echo a secret value', () => {
    let message = '';
    try {
      parseArguments('signInWithOtp', [{ otp: 'not-a-code-secret-value', nonce: 'n' }]);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/input\.otp/);
    expect(message).not.toContain('secret-value');
  });

  it('plain data only: bytes are values, class instances and cycles are refused', () => {
    expect(() => checkPlainData('updateUser', [{ totpSecret: new Uint8Array(20) }])).not.toThrow();
    expect(() => checkPlainData('updateUser', [{ clientMetadata: new Map() }])).toThrow(
      expect.objectContaining({ argument: 'update.clientMetadata' }),
    );
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => checkPlainData('updateUser', [{ clientMetadata: cycle }])).toThrow(
      expect.objectContaining({ argument: 'update.clientMetadata.self' }),
    );
  });
});
