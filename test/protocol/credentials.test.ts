import { describe, expect, it } from 'vitest';
import { normalizeBaseUrl, refuseSecretsInBrowserOptions } from '../../protocol/credentials.js';

describe('normalizeBaseUrl', () => {
  it('drops trailing slashes and the /api/v1 the emulator prints, in any case', () => {
    expect(normalizeBaseUrl('https://api.stack-auth.com')).toBe('https://api.stack-auth.com');
    expect(normalizeBaseUrl('http://127.0.0.1:8102/api/v1')).toBe('http://127.0.0.1:8102');
    expect(normalizeBaseUrl('http://127.0.0.1:8102/API/V1//')).toBe('http://127.0.0.1:8102');
    expect(normalizeBaseUrl('https://example.com/auth/api/v1/')).toBe('https://example.com/auth');
    expect(normalizeBaseUrl('https://example.com/api/v1/api/v1')).toBe('https://example.com/api/v1');
    expect(normalizeBaseUrl('https://example.com//api/v1//')).toBe('https://example.com');
    expect(normalizeBaseUrl('https://example.com///')).toBe('https://example.com');
    expect(normalizeBaseUrl('https://example.com/api/v1x')).toBe('https://example.com/api/v1x');
    expect(normalizeBaseUrl('https://example.com/v1/')).toBe('https://example.com/v1');
  });

  it('is the three steps it stands for (slashes, then /api/v1, then slashes), on every mix of those pieces', () => {
    const stepwise = (url: string) =>
      url
        .replace(/\/+$/, '')
        .replace(/\/api\/v1$/i, '')
        .replace(/\/+$/, '');
    const pieces = ['/', 'api', '/api', '/v1', 'v1', '/API/V1', 'x'];
    const mixes = (length: number): string[] =>
      length === 0 ? [''] : mixes(length - 1).flatMap((head) => pieces.map((piece) => head + piece));
    for (const tail of mixes(4))
      expect(normalizeBaseUrl(`https://example.com${tail}`), tail).toBe(stepwise(`https://example.com${tail}`));
  });
});

describe('refuseSecretsInBrowserOptions', () => {
  it('refuses a secret key whatever white space comes before it', () => {
    for (const space of ['', ' ', '\t', '\n', '\u00a0', '\u2003', '\ufeff', ' \r\n ']) {
      for (const prefix of ['ssk_', 'sak_']) {
        expect(
          () => refuseSecretsInBrowserOptions({ publishableClientKey: `${space}${prefix}abc` }, 'options.'),
          JSON.stringify(space + prefix),
        ).toThrow(expect.objectContaining({ code: 'UNSAFE_CREDENTIALS' }));
      }
    }
  });

  it('lets through what only looks like one', () => {
    for (const key of ['pck_ssk_abc', 'SSK_abc', 'sk_abc', 'x ssk_abc', 'ss k_abc']) {
      expect(() => refuseSecretsInBrowserOptions({ publishableClientKey: key }, 'options.'), key).not.toThrow();
    }
  });
});
