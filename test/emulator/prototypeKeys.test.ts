import { describe, expect, it } from 'vitest';
import { keyHeaders, raw } from './httpSupport.js';
import { useEmulator } from '../support/emulator.js';

const emulator = useEmulator();

/** Keys that objects inherit (toString, constructor…) must be plain unknown keys, never a crash. */
describe('keys named like Object.prototype members', () => {
  it('in a body: SCHEMA_ERROR "contains unknown properties", not a 500', async () => {
    const em = emulator();
    for (const key of ['toString', 'constructor', 'valueOf', 'hasOwnProperty', '__proto__']) {
      const response = await raw(em, 'POST', '/api/v1/auth/password/sign-in', {
        headers: { ...keyHeaders(em, 'client'), 'content-type': 'application/json' },
        body: `{"email":"a@b.co","password":"12345678","${key}":1}`,
      });
      expect(response.status, key).toBe(400);
      expect(response.headers.get('x-stack-known-error'), key).toBe('SCHEMA_ERROR');
      expect(response.text, key).toContain(`body contains unknown properties: ${key}`);
    }
  });

  it('nested in a validated object and in a query', async () => {
    const em = emulator();
    const nested = await raw(em, 'PATCH', '/api/v1/internal/projects/current', {
      headers: { ...keyHeaders(em, 'admin'), 'content-type': 'application/json' },
      body: '{"config":{"valueOf":"x"}}',
    });
    expect(nested.headers.get('x-stack-known-error')).toBe('SCHEMA_ERROR');
    expect(nested.text).toContain('body.config contains unknown properties: valueOf');
    const query = await raw(em, 'GET', '/api/v1?toString=1');
    expect(query.headers.get('x-stack-known-error')).toBe('SCHEMA_ERROR');
    expect(query.text).toContain('query contains unknown properties: toString');
  });

  it('an object where text or a boolean is expected: SCHEMA_ERROR, not a 500', async () => {
    const em = emulator();
    for (const body of [
      '{"email":{"toString":1},"password":"12345678"}',
      '{"email":"a@b.co","password":{"toString":1,"valueOf":1}}',
    ]) {
      const response = await raw(em, 'POST', '/api/v1/auth/password/sign-in', {
        headers: { ...keyHeaders(em, 'client'), 'content-type': 'application/json' },
        body,
      });
      expect(response.status, body).toBe(400);
      expect(response.headers.get('x-stack-known-error'), body).toBe('SCHEMA_ERROR');
    }
  });

  it('free-form JSON (metadata) may use any key', async () => {
    const em = emulator();
    const response = await raw(em, 'POST', '/api/v1/users', {
      headers: { ...keyHeaders(em, 'server'), 'content-type': 'application/json' },
      body: '{"client_metadata":{"toString":1,"constructor":{"x":1}}}',
    });
    expect(response.status).toBe(201);
    expect(response.json<{ client_metadata: unknown }>().client_metadata).toEqual({
      toString: 1,
      constructor: { x: 1 },
    });
  });
});
