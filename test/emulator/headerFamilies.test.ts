/**
 * The known-error and actual-status headers come in the family the request spoke: the service's `x-stack-*` alone for a
 * request in that family (as the service answers), both families for a request in `x-hexclave-*` (the SDK releases
 * that send it read either).
 */
import { describe, expect, it } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { raw } from './httpSupport.js';

const emulator = useEmulator();

describe('known-error headers by header family', () => {
  it('an x-stack-* request gets x-stack-known-error and no x-hexclave-* twin', async () => {
    const em = emulator();
    const response = await raw(em, 'GET', '/api/v1/projects/current', {
      headers: { 'x-stack-project-id': em.projects.demo.id },
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('x-stack-known-error')).toBe('ACCESS_TYPE_REQUIRED');
    expect(response.headers.get('x-hexclave-known-error')).toBeNull();
  });

  it('the status override answers x-stack-actual-status alone to an x-stack-* request', async () => {
    const em = emulator();
    const response = await raw(em, 'GET', '/api/v1/projects/current', {
      headers: { 'x-stack-project-id': em.projects.demo.id, 'x-stack-override-error-status': 'true' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-stack-actual-status')).toBe('400');
    expect(response.headers.get('x-hexclave-actual-status')).toBeNull();
    expect(response.headers.get('x-hexclave-known-error')).toBeNull();
  });

  it('an x-hexclave-* request gets both families', async () => {
    const em = emulator();
    const response = await raw(em, 'GET', '/api/v1/projects/current', {
      headers: { 'x-hexclave-project-id': em.projects.demo.id },
    });
    expect(response.headers.get('x-stack-known-error')).toBe('ACCESS_TYPE_REQUIRED');
    expect(response.headers.get('x-hexclave-known-error')).toBe('ACCESS_TYPE_REQUIRED');
  });
});
