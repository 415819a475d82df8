import { describe, expect, expectTypeOf, it } from 'vitest';
import { decodeResponse } from '../../protocol/codec.js';
import type { NetworkDiagnostics } from '../../protocol/errors/errors.js';
import { knownErrorCatalogue, knownErrorCodes, type KnownErrorCode } from '../../protocol/errors/catalogue.js';
import { lineageOf, statusOf } from '../../protocol/errors/lineage.js';
import {
  ClientError,
  HttpStatusError,
  InvalidArgumentError,
  NetworkError,
  ProtocolError,
  type AuthBrokerError,
} from '../../protocol/errors/errors.js';
import { knownErrorFamilies } from '../../protocol/errors/families.js';
import { isKnownError, KnownError, type AnyKnownError } from '../../protocol/errors/knownError.js';
import { createKnownError, knownErrorFromBody } from '../../protocol/errors/create.js';
import { deserializeError, serializeError } from '../../protocol/errors/serialize.js';
import type { FieldKind, Shape } from '../../protocol/errors/shape.js';

function sampleValue(kind: FieldKind, key: string, nulls: boolean): unknown {
  switch (kind) {
    case 'string':
      return `sample-${key}`;
    case 'string|null':
      return nulls ? null : `sample-${key}`;
    case 'number':
      return 1738374988000;
    case 'number|null':
      return nulls ? null : 1738374988000;
    case 'boolean':
      return true;
    case 'object':
      return { type: 'email_not_verified' };
    case 'string[]':
      return ['server', 'admin'];
    case 'unknown[]':
      return [
        { status_code: 400, message: 'first', headers: {} },
        { code: 'SCHEMA_ERROR', error: 'second' },
      ];
  }
}

function sampleInput(code: KnownErrorCode, nulls: boolean): Record<string, unknown> {
  const entry = knownErrorCatalogue[code] as { details: Shape | null; args: Shape };
  const input: Record<string, unknown> = {};
  for (const shape of [entry.details ?? {}, entry.args]) {
    for (const [key, kind] of Object.entries(shape)) input[key] = sampleValue(kind, key, nulls);
  }
  return input;
}

const create = createKnownError as (code: KnownErrorCode, input?: Record<string, unknown>) => AnyKnownError;

function expectSameKnownError(actual: AnyKnownError, expected: AnyKnownError): void {
  expect(actual).toBeInstanceOf(KnownError);
  expect(actual.code).toBe(expected.code);
  expect(actual.details).toEqual(expected.details);
  expect(actual.message).toBe(expected.message);
  expect(actual.status).toBe(expected.status);
  expect(actual.toWire()).toEqual(expected.toWire());
}

const nullableCodes = knownErrorCodes.filter((code) =>
  Object.values(knownErrorCatalogue[code].details ?? {}).some((kind) => String(kind).endsWith('|null')),
);

describe('every concrete code round-trips', () => {
  it.each(knownErrorCodes)('%s through toWire → JSON → knownErrorFromBody', (code) => {
    const original = create(code, sampleInput(code, false));
    expect(original.code).toBe(code);
    expect(original.status).toBe(statusOf(code));
    expect(original.message.length).toBeGreaterThan(0);
    const wire = original.toWire();
    expect(Object.keys(wire)).toEqual(
      knownErrorCatalogue[code].details === null ? ['code', 'error'] : ['code', 'details', 'error'],
    );
    const parsed = knownErrorFromBody(JSON.parse(JSON.stringify(wire)));
    expectSameKnownError(parsed, original);
    expect(JSON.stringify(parsed.toWire())).toBe(JSON.stringify(wire));
  });

  it.each(knownErrorCodes)('%s through an overridden HTTP response', async (code) => {
    const original = create(code, sampleInput(code, false));
    const response = new Response(JSON.stringify(original.toWire(), null, 2), {
      status: 200,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'x-stack-known-error': code,
        'x-stack-actual-status': String(original.status),
      },
    });
    const decoded = await decodeResponse(response);
    expect(decoded.kind).toBe('known-error');
    if (decoded.kind === 'known-error') expectSameKnownError(decoded.error, original);
  });

  it.each(nullableCodes)('%s with null details round-trips', (code) => {
    const original = create(code, sampleInput(code, true));
    expect(Object.values(original.details as object)).toContain(null);
    expectSameKnownError(knownErrorFromBody(JSON.parse(JSON.stringify(original.toWire()))), original);
  });

  it('has nullable codes to test', () => {
    expect(nullableCodes).toEqual(
      expect.arrayContaining([
        'ACCESS_TOKEN_EXPIRED',
        'ADMIN_ACCESS_TOKEN_EXPIRED',
        'INVALID_OAUTH_CLIENT_ID_OR_SECRET',
        'CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE',
      ]),
    );
  });

  it('details carry exactly the catalogue fields (extra wire fields dropped)', () => {
    const parsed = knownErrorFromBody({
      code: 'TEAM_NOT_FOUND',
      details: { team_id: 't', extra: 1 },
      error: 'Team t not found.',
    });
    expect(parsed.details).toEqual({ team_id: 't' });
    expect(
      knownErrorFromBody({ code: 'USER_NOT_FOUND', details: { ignored: true }, error: 'User not found.' }).details,
    ).toBeUndefined();
  });

  it('falls back to the code as message and keeps a given status', () => {
    const parsed = knownErrorFromBody({ code: 'USER_NOT_FOUND' }, 200);
    expect(parsed.message).toBe('USER_NOT_FOUND');
    expect(parsed.status).toBe(200);
  });

  it.each([null, 'text', 42, [], {}, { code: '' }, { code: 7 }])('refuses the body %j', (body) => {
    expect(() => knownErrorFromBody(body)).toThrow(ProtocolError);
  });
});

describe('families', () => {
  const all = (family: Parameters<typeof isKnownError>[1]) =>
    knownErrorCodes.filter((code) => isKnownError(create(code, sampleInput(code, false)), family));

  it('INVALID_ACCESS_TOKEN is exactly the three access-token errors', () => {
    expect(all('INVALID_ACCESS_TOKEN').sort()).toEqual([
      'ACCESS_TOKEN_EXPIRED',
      'INVALID_PROJECT_FOR_ACCESS_TOKEN',
      'UNPARSABLE_ACCESS_TOKEN',
    ]);
    expect(all('SESSION_AUTHENTICATION_ERROR').sort()).toEqual(all('INVALID_ACCESS_TOKEN').sort());
    expect(
      isKnownError(createKnownError('ADMIN_ACCESS_TOKEN_EXPIRED', { expired_at_millis: null }), 'INVALID_ACCESS_TOKEN'),
    ).toBe(false);
    expect(isKnownError(createKnownError('REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED'), 'INVALID_ACCESS_TOKEN')).toBe(false);
  });

  it('REFRESH_TOKEN_ERROR covers CANNOT_DELETE_CURRENT_SESSION', () => {
    expect(all('REFRESH_TOKEN_ERROR').sort()).toEqual([
      'CANNOT_DELETE_CURRENT_SESSION',
      'PROVIDER_REJECTED',
      'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED',
    ]);
  });

  it('key-missing errors are not INVALID_PROJECT_AUTHENTICATION, key-invalid ones are', () => {
    const invalid = all('INVALID_PROJECT_AUTHENTICATION');
    for (const missing of [
      'CLIENT_AUTHENTICATION_REQUIRED',
      'SERVER_AUTHENTICATION_REQUIRED',
      'ADMIN_AUTHENTICATION_REQUIRED',
      'CLIENT_OR_SERVER_AUTHENTICATION_REQUIRED',
      'PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT',
    ]) {
      expect(invalid).not.toContain(missing);
      expect(all('PROJECT_AUTHENTICATION_REQUIRED')).toContain(missing);
      expect(all('PROJECT_AUTHENTICATION_ERROR')).toContain(missing);
    }
    for (const bad of [
      'INVALID_PUBLISHABLE_CLIENT_KEY',
      'INVALID_SECRET_SERVER_KEY',
      'INVALID_SUPER_SECRET_ADMIN_KEY',
      'INSUFFICIENT_ACCESS_TYPE',
    ]) {
      expect(invalid).toContain(bad);
    }
    expect(all('PROJECT_AUTHENTICATION_REQUIRED')).toHaveLength(7);
    expect(invalid).toHaveLength(12);
    expect(all('PROJECT_AUTHENTICATION_ERROR')).toHaveLength(20);
  });

  it('INVALID_ADMIN_ACCESS_TOKEN under INVALID_PROJECT_AUTHENTICATION under PROJECT_AUTHENTICATION_ERROR', () => {
    const e = createKnownError('ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN');
    for (const family of [
      'INVALID_ADMIN_ACCESS_TOKEN',
      'INVALID_PROJECT_AUTHENTICATION',
      'PROJECT_AUTHENTICATION_ERROR',
    ] as const) {
      expect(isKnownError(e, family)).toBe(true);
    }
    expect(isKnownError(e, 'PROJECT_AUTHENTICATION_REQUIRED')).toBe(false);
    expect(all('INVALID_ADMIN_ACCESS_TOKEN').sort()).toEqual([
      'ADMIN_ACCESS_TOKEN_EXPIRED',
      'ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN',
      'INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN',
      'UNPARSABLE_ADMIN_ACCESS_TOKEN',
    ]);
  });

  it('lineageOf lists a code then its families, most specific first', () => {
    expect(lineageOf('ADMIN_ACCESS_TOKEN_EXPIRED')).toEqual([
      'ADMIN_ACCESS_TOKEN_EXPIRED',
      'INVALID_ADMIN_ACCESS_TOKEN',
      'INVALID_PROJECT_AUTHENTICATION',
      'PROJECT_AUTHENTICATION_ERROR',
    ]);
    expect(lineageOf('ACCESS_TOKEN_EXPIRED')).toEqual([
      'ACCESS_TOKEN_EXPIRED',
      'INVALID_ACCESS_TOKEN',
      'INVALID_SESSION_AUTHENTICATION',
      'SESSION_AUTHENTICATION_ERROR',
    ]);
    expect(lineageOf('PASSWORD_TOO_SHORT')).toEqual(['PASSWORD_TOO_SHORT', 'PASSWORD_REQUIREMENTS_NOT_MET']);
    expect(lineageOf('USER_NOT_FOUND')).toEqual(['USER_NOT_FOUND']);
    for (const code of knownErrorCodes) {
      for (const family of lineageOf(code).slice(1)) expect(Object.keys(knownErrorFamilies)).toContain(family);
    }
  });

  it('matches exact codes and only KnownError instances', () => {
    const e = createKnownError('ACCESS_TOKEN_EXPIRED', { expired_at_millis: 5 });
    expect(isKnownError(e)).toBe(true);
    expect(isKnownError(e, 'ACCESS_TOKEN_EXPIRED')).toBe(true);
    expect(isKnownError(e, 'UNPARSABLE_ACCESS_TOKEN')).toBe(false);
    expect(isKnownError(e, 'VERIFICATION_ERROR')).toBe(false);
    expect(isKnownError(new Error('ACCESS_TOKEN_EXPIRED'))).toBe(false);
    expect(
      isKnownError({ code: 'ACCESS_TOKEN_EXPIRED', details: { expired_at_millis: 5 } }, 'ACCESS_TOKEN_EXPIRED'),
    ).toBe(false);
    expect(isKnownError(new HttpStatusError(401, 'x'))).toBe(false);
  });

  it('narrows types (checked by tsc)', () => {
    const e: unknown = createKnownError('ACCESS_TOKEN_EXPIRED', { expired_at_millis: 1 });
    if (isKnownError(e, 'ACCESS_TOKEN_EXPIRED')) {
      expectTypeOf(e.details.expired_at_millis).toEqualTypeOf<number | null>();
      expectTypeOf(e.code).toEqualTypeOf<'ACCESS_TOKEN_EXPIRED'>();
    } else {
      expect.unreachable();
    }
    const e2: unknown = e;
    if (isKnownError(e2, 'INVALID_ACCESS_TOKEN')) {
      expectTypeOf(e2.code).toEqualTypeOf<
        'UNPARSABLE_ACCESS_TOKEN' | 'ACCESS_TOKEN_EXPIRED' | 'INVALID_PROJECT_FOR_ACCESS_TOKEN'
      >();
    }
    const e3: unknown = e;
    if (isKnownError(e3, 'PASSWORD_REQUIREMENTS_NOT_MET')) {
      expectTypeOf(e3.code).toEqualTypeOf<'PASSWORD_TOO_SHORT' | 'PASSWORD_TOO_LONG'>();
    }
    const e4: unknown = e;
    if (isKnownError(e4)) expectTypeOf(e4).toEqualTypeOf<AnyKnownError>();

    const any = e4 as AnyKnownError;
    switch (any.code) {
      case 'TEAM_PERMISSION_REQUIRED':
        expectTypeOf(any.details).toEqualTypeOf<{ team_id: string; user_id: string; permission_id: string }>();
        break;
      case 'PASSWORD_TOO_LONG':
        expectTypeOf(any.details).toEqualTypeOf<{ maxLength: number }>();
        break;
      case 'INSUFFICIENT_ACCESS_TYPE':
        expectTypeOf(any.details.allowed_access_types).toEqualTypeOf<string[]>();
        break;
      case 'USER_NOT_FOUND':
        expectTypeOf(any.details).toEqualTypeOf<undefined>();
        break;
      case 'UNSUPPORTED_ERROR':
        expectTypeOf(any.details).toEqualTypeOf<{ originalErrorCode: string }>();
        break;
    }
    expectTypeOf(createKnownError('PASSWORD_TOO_SHORT', { min_length: 8 })).toEqualTypeOf<
      KnownError<'PASSWORD_TOO_SHORT'>
    >();
    expectTypeOf(knownErrorFromBody).returns.toEqualTypeOf<AnyKnownError>();

    // Never run: these must not compile.
    const typeErrors = () => {
      // @ts-expect-error TEAM_NOT_FOUND needs its details
      createKnownError('TEAM_NOT_FOUND');
      // @ts-expect-error USER_NOT_FOUND takes no input
      createKnownError('USER_NOT_FOUND', { user_id: 'x' });
      // @ts-expect-error a wrong field type
      createKnownError('PASSWORD_TOO_SHORT', { min_length: '8' });
      // @ts-expect-error not a code or family
      isKnownError(e, 'NOT_A_CODE');
    };
    expect(typeof typeErrors).toBe('function');
  });
});

describe('serializeError / deserializeError', () => {
  const diagnostics: NetworkDiagnostics = {
    navigatorOnline: true,
    apiRoot: {
      url: 'https://api.example.test/api/v1',
      status: null,
      reachable: false,
      error: 'fetch failed',
      elapsedMillis: 3,
    },
    health: { url: 'https://api.example.test/health', status: 200, reachable: true, error: null, elapsedMillis: 4 },
    checkedAtMillis: 1000,
  };
  const samples: Array<[string, AuthBrokerError, new (...args: never[]) => AuthBrokerError]> = [
    [
      'KnownError with details',
      createKnownError('TEAM_PERMISSION_REQUIRED', { team_id: 't', user_id: 'u', permission_id: 'p' }),
      KnownError,
    ],
    ['KnownError without details', createKnownError('USER_NOT_FOUND'), KnownError],
    [
      'KnownError with a wire status',
      knownErrorFromBody({ code: 'USER_NOT_FOUND', error: 'User not found.' }, 200),
      KnownError,
    ],
    ['UNSUPPORTED_ERROR', knownErrorFromBody({ code: 'FUTURE_CODE', error: 'Future.' }, 418), KnownError],
    ['HttpStatusError', new HttpStatusError(403, 'Client can only list teams for their own user.'), HttpStatusError],
    [
      'NetworkError',
      new NetworkError('NETWORK_UNREACHABLE', 'unreachable', diagnostics, 5, { cause: new TypeError('x') }),
      NetworkError,
    ],
    ['NetworkError offline', new NetworkError('NETWORK_OFFLINE', 'offline', null, 1), NetworkError],
    [
      'InvalidArgumentError',
      new InvalidArgumentError('options.email', 'options.email must be a string.'),
      InvalidArgumentError,
    ],
    ['ClientError', new ClientError('OAUTH_STATE_MISMATCH', 'state mismatch'), ClientError],
    ['ProtocolError', new ProtocolError('bad header'), ProtocolError],
  ];

  it.each(samples)('%s survives structuredClone and JSON', (_name, error, cls) => {
    const serialized = serializeError(error);
    for (const copy of [structuredClone(serialized), JSON.parse(JSON.stringify(serialized)) as unknown]) {
      const rebuilt = deserializeError(copy);
      expect(rebuilt).toBeInstanceOf(cls);
      expect(rebuilt).toBeInstanceOf(Error);
      expect(rebuilt.constructor).toBe(error.constructor);
      expect(rebuilt.name).toBe(error.name);
      expect(rebuilt.code).toBe(error.code);
      expect(rebuilt.message).toBe(error.message);
      expect(rebuilt.toJSON()).toEqual(error.toJSON());
    }
  });

  it('keeps the class-specific fields', () => {
    const known = deserializeError(structuredClone(serializeError(samples[0]![1]))) as AnyKnownError;
    expect(known.details).toEqual({ team_id: 't', user_id: 'u', permission_id: 'p' });
    expect(known.status).toBe(401);
    expect(isKnownError(known, 'TEAM_PERMISSION_REQUIRED')).toBe(true);
    const unsupported = deserializeError(structuredClone(serializeError(samples[3]![1]))) as AnyKnownError;
    expect(unsupported.details).toEqual({ originalErrorCode: 'FUTURE_CODE' });
    expect(unsupported.status).toBe(418);
    const network = deserializeError(structuredClone(serializeError(samples[5]![1]))) as NetworkError;
    expect(network.diagnostics).toEqual(diagnostics);
    expect(network.attempts).toBe(5);
    expect((deserializeError(serializeError(samples[4]![1])) as HttpStatusError).body).toBe(
      'Client can only list teams for their own user.',
    );
    expect((deserializeError(serializeError(samples[7]![1])) as InvalidArgumentError).argument).toBe('options.email');
  });

  it('wraps foreign values and refuses malformed data', () => {
    const foreign = deserializeError(serializeError(new RangeError('boom')));
    expect(foreign).toBeInstanceOf(ProtocolError);
    expect(foreign.message).toContain('boom');
    expect(deserializeError(serializeError('plain string'))).toBeInstanceOf(ProtocolError);
    expect(deserializeError({ nope: true })).toBeInstanceOf(ProtocolError);
    expect(deserializeError(null)).toBeInstanceOf(ProtocolError);
    const unknownCode = deserializeError({
      kind: 'known',
      code: 'FROM_THE_FUTURE',
      message: 'm',
      status: 400,
    }) as AnyKnownError;
    expect(unknownCode.code).toBe('UNSUPPORTED_ERROR');
    expect(unknownCode.details).toEqual({ originalErrorCode: 'FROM_THE_FUTURE' });
  });
});
