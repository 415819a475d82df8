import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../protocol/errors/errors.js';
import { isKnownError, KnownError } from '../../protocol/errors/knownError.js';
import { createRefreshingTokenSource } from '../../protocol/tokenSource.js';
import { staticTokenSource } from '../../protocol/transport.js';
import {
  assertPasswordConfirmed,
  assertTokenMargin,
  assertTrustedRedirectUrl,
  assertUsableAccessToken,
  assertValidPassword,
  DEFAULT_TOKEN_MARGIN_MILLIS,
  isTrustedRedirectUrl,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  passwordProblem,
  stripOAuthCallbackParams,
  type TrustPolicy,
} from '../../protocol/validation.js';

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('passwords', () => {
  it('are 8 to 70 characters', () => {
    expect(MIN_PASSWORD_LENGTH).toBe(8);
    expect(MAX_PASSWORD_LENGTH).toBe(70);
    expect(passwordProblem('a'.repeat(8))).toBeNull();
    expect(passwordProblem('a'.repeat(70))).toBeNull();
    expect(() => assertValidPassword('correct horse')).not.toThrow();
  });

  it('too short is PASSWORD_TOO_SHORT', () => {
    for (const password of ['', 'short', 'a'.repeat(7)]) {
      const error = thrown(() => assertValidPassword(password));
      expect(error).toBeInstanceOf(KnownError);
      expect(isKnownError(error, 'PASSWORD_TOO_SHORT')).toBe(true);
      expect(isKnownError(error, 'PASSWORD_REQUIREMENTS_NOT_MET')).toBe(true);
      expect((error as KnownError).message).toBe('Password too short. Minimum length is 8.');
      expect((error as KnownError).details).toEqual({ min_length: 8 });
      expect((error as KnownError).status).toBe(400);
    }
  });

  it('too long is PASSWORD_TOO_LONG', () => {
    const error = thrown(() => assertValidPassword('a'.repeat(71)));
    expect(isKnownError(error, 'PASSWORD_TOO_LONG')).toBe(true);
    expect((error as KnownError).message).toBe('Password too long. Maximum length is 70.');
    expect((error as KnownError).details).toEqual({ maxLength: 70 });
  });

  it('a non-string is an invalid argument named after the argument', () => {
    const error = thrown(() => assertValidPassword(12345678, 'new_password'));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as InvalidArgumentError).argument).toBe('new_password');
    expect(thrown(() => assertValidPassword(undefined))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      argument: 'password',
    });
  });

  it('a confirmation that differs is PASSWORD_CONFIRMATION_MISMATCH', () => {
    const error = thrown(() => assertPasswordConfirmed('password-1', 'password-2'));
    expect(isKnownError(error, 'PASSWORD_CONFIRMATION_MISMATCH')).toBe(true);
    expect((error as KnownError).message).toBe('Passwords do not match.');
    expect(() => assertPasswordConfirmed('same-password', 'same-password')).not.toThrow();
  });
});

describe('access tokens and margins', () => {
  it.each(['undefined', 'null', '', '   '])('refuses the token %j', (token) => {
    const error = thrown(() => assertUsableAccessToken(token, 'options.accessToken'));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as InvalidArgumentError).argument).toBe('options.accessToken');
  });

  it('refuses non-strings and accepts a real-looking token', () => {
    expect(thrown(() => assertUsableAccessToken(undefined))).toBeInstanceOf(InvalidArgumentError);
    expect(thrown(() => assertUsableAccessToken(42))).toBeInstanceOf(InvalidArgumentError);
    expect(() => assertUsableAccessToken('eyJhbGciOiJFUzI1NiJ9.e30.sig')).not.toThrow();
    expect(thrown(() => staticTokenSource('undefined'))).toBeInstanceOf(InvalidArgumentError);
  });

  it('a margin of 60000 ms or more is refused, 59999 accepted', () => {
    expect(DEFAULT_TOKEN_MARGIN_MILLIS).toBe(20_000);
    for (const margin of [0, 20_000, 59_999]) expect(() => assertTokenMargin(margin)).not.toThrow();
    for (const margin of [60_000, 60_001, 1e9, -1, Number.NaN, Number.POSITIVE_INFINITY, '1000']) {
      expect(thrown(() => assertTokenMargin(margin, 'marginMillis'))).toMatchObject({
        code: 'INVALID_ARGUMENT',
        argument: 'marginMillis',
      });
    }
  });

  it('the refreshing token source checks its margin and tokens', () => {
    const base = {
      baseUrl: 'https://api.example.test',
      projectId: 'p',
      publishableClientKey: 'pck',
      refreshToken: 'rt',
    };
    expect(thrown(() => createRefreshingTokenSource({ ...base, marginMillis: 60_000 }))).toMatchObject({
      argument: 'marginMillis',
    });
    expect(() => createRefreshingTokenSource({ ...base, marginMillis: 59_999 })).not.toThrow();
    expect(thrown(() => createRefreshingTokenSource({ ...base, refreshToken: 'undefined' }))).toBeInstanceOf(
      InvalidArgumentError,
    );
  });
});

describe('isTrustedRedirectUrl (PROTOCOL.md §10)', () => {
  const localOnly: TrustPolicy = { allowLocalhost: true, domains: [] };
  const domains: TrustPolicy = {
    allowLocalhost: false,
    domains: [
      { domain: 'https://example.com/app', handler_path: '/handler' },
      { domain: 'https://root.example.org', handler_path: '/handler' },
      { domain: 'not a url', handler_path: '/handler' },
    ],
  };

  it.each([
    'http://localhost:3000/callback',
    'https://localhost/',
    'http://app.localhost:8080/x?y=1',
    'http://a.b.localhost',
    'http://127.0.0.1:5173/cb',
    'http://127.255.10.3/',
    'custom-scheme://localhost/cb',
  ])('trusts the local URL %s when localhost is allowed', (url) => {
    expect(isTrustedRedirectUrl(url, localOnly)).toBe(true);
    expect(isTrustedRedirectUrl(url, { allowLocalhost: false, domains: [] })).toBe(false);
  });

  it.each([
    'http://[::1]:3000/',
    'http://localhost.evil.com/',
    'http://mylocalhost/',
    'http://128.0.0.1/',
    'http://127.0.0.1.nip.io/',
    'http://0.0.0.0/',
  ])('does not treat %s as local', (url) => {
    expect(isTrustedRedirectUrl(url, localOnly)).toBe(false);
  });

  it('matches protocol and hostname, ignores the port, and prefixes the path as a string', () => {
    expect(isTrustedRedirectUrl('https://example.com/app', domains)).toBe(true);
    expect(isTrustedRedirectUrl('https://example.com/app/callback?x=1#f', domains)).toBe(true);
    expect(isTrustedRedirectUrl('https://example.com:8443/app/cb', domains)).toBe(true);
    expect(isTrustedRedirectUrl('https://example.com/application', domains)).toBe(true);
    expect(isTrustedRedirectUrl('http://example.com/app/cb', domains)).toBe(false);
    expect(isTrustedRedirectUrl('https://example.com/other', domains)).toBe(false);
    expect(isTrustedRedirectUrl('https://example.com/', domains)).toBe(false);
    expect(isTrustedRedirectUrl('https://sub.example.com/app', domains)).toBe(false);
    expect(isTrustedRedirectUrl('https://example.com.evil.test/app', domains)).toBe(false);
    expect(isTrustedRedirectUrl('https://root.example.org/anything/at/all', domains)).toBe(true);
    expect(isTrustedRedirectUrl('https://localhost/app', domains)).toBe(false);
  });

  it('an unparsable URL is untrusted', () => {
    expect(isTrustedRedirectUrl('not a url', domains)).toBe(false);
    expect(isTrustedRedirectUrl('/relative/path', localOnly)).toBe(false);
    expect(isTrustedRedirectUrl('', localOnly)).toBe(false);
  });

  it('accepts URL objects', () => {
    expect(isTrustedRedirectUrl(new URL('https://example.com/app/x'), domains)).toBe(true);
  });
});

describe('assertTrustedRedirectUrl', () => {
  it('does nothing without a policy', () => {
    expect(() => assertTrustedRedirectUrl('https://anything.test/cb', null)).not.toThrow();
    expect(() => assertTrustedRedirectUrl('not a url', null)).not.toThrow();
  });

  it('throws REDIRECT_URL_NOT_WHITELISTED for an untrusted URL', () => {
    const policy: TrustPolicy = { allowLocalhost: true, domains: [] };
    expect(() => assertTrustedRedirectUrl('http://localhost:3000/cb', policy)).not.toThrow();
    const error = thrown(() => assertTrustedRedirectUrl('https://evil.test/cb', policy));
    expect(isKnownError(error, 'REDIRECT_URL_NOT_WHITELISTED')).toBe(true);
    expect((error as KnownError).status).toBe(400);
  });
});

describe('stripOAuthCallbackParams', () => {
  it('removes code, state and the fragment, keeping other parameters in order', () => {
    expect(stripOAuthCallbackParams('https://app.test/cb?a=1&code=xyz&b=2&state=s&c=3#frag')).toBe(
      'https://app.test/cb?a=1&b=2&c=3',
    );
    expect(stripOAuthCallbackParams('https://app.test/cb?code=xyz&state=s')).toBe('https://app.test/cb');
    expect(stripOAuthCallbackParams(new URL('http://localhost:3000/oauth?keep=yes'))).toBe(
      'http://localhost:3000/oauth?keep=yes',
    );
    expect(stripOAuthCallbackParams('https://app.test/cb?code=1&code=2&codes=3')).toBe('https://app.test/cb?codes=3');
  });
});

describe('isTrustedRedirectUrl: browser extensions’ web-auth redirect URLs (issue 33)', () => {
  const extensions: TrustPolicy = {
    allowLocalhost: true,
    domains: [
      { domain: 'https://nkfhlofegonjdoefllidhjigbpeabaen.chromiumapp.org', handler_path: '/handler' },
      { domain: 'https://0b5f1e3c6d2a4f7e9c8b1a2d3e4f5a6b7c8d9e0f.extensions.allizom.org', handler_path: '/handler' },
    ],
  };

  it('trusts the https redirect URL of a trusted extension id, in Chromium and Firefox, with any path and query', () => {
    expect(
      isTrustedRedirectUrl(
        'https://nkfhlofegonjdoefllidhjigbpeabaen.chromiumapp.org/authbroker-oauth?code=x&state=y',
        extensions,
      ),
    ).toBe(true);
    expect(
      isTrustedRedirectUrl(
        'https://0b5f1e3c6d2a4f7e9c8b1a2d3e4f5a6b7c8d9e0f.extensions.allizom.org/authbroker-oauth',
        extensions,
      ),
    ).toBe(true);
  });

  it('not another extension’s, nor the extension’s own pages, nor http', () => {
    expect(
      isTrustedRedirectUrl('https://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.chromiumapp.org/authbroker-oauth', extensions),
    ).toBe(false);
    expect(
      isTrustedRedirectUrl('http://nkfhlofegonjdoefllidhjigbpeabaen.chromiumapp.org/authbroker-oauth', extensions),
    ).toBe(false);
    expect(
      isTrustedRedirectUrl('chrome-extension://nkfhlofegonjdoefllidhjigbpeabaen/handler/oauth-callback', extensions),
    ).toBe(false);
    expect(
      isTrustedRedirectUrl('moz-extension://6a1f3a52-27d4-4a49-9d43-3c7e2b7a1e01/handler/oauth-callback', extensions),
    ).toBe(false);
  });
});
