import { describe, expect, it } from 'vitest';
import { normalizeBaseUrl, refuseSecretsInBrowserOptions } from '../../protocol/credentials.js';

describe('normalizeBaseUrl', () => {
  it('drops trailing slashes and the /api/v1 the emulator prints, in any case', () => {
    expect(normalizeBaseUrl('https://api.stack-auth.com')).toBe('https://api.stack-auth.com');
    expect(normalizeBaseUrl('http://127.0.0.1:8102/api/v1')).toBe('http://127.0.0.1:8102');
    expect(normalizeBaseUrl('http://127.0.0.1:8102/API/V1//')).toBe('http://127.0.0.1:8102');
    expect(normalizeBaseUrl('https://example.com/auth/api/v1/')).toBe('https://example.com/auth');
    expect(normalizeBaseUrl('https://example.com/api/v1/api/v1')).toBe('https://example.com/api/v1');
  });
});

describe('refuseSecretsInBrowserOptions', () => {
  it('refuses a secret key whatever white space comes before it', () => {
    for (const space of ['', ' ', '\t', '\n', '\u00a0', '\u2003', '\ufeff', ' \r\n ']) {
      for (const prefix of ['ssk_', 'sak_']) {
        expect(() => refuseSecretsInBrowserOptions({ publishableClientKey: `${space}${prefix}abc` }, 'options.'), JSON.stringify(space + prefix)).toThrow(expect.objectContaining({ code: 'UNSAFE_CREDENTIALS' }));
      }
    }
  });

  it('lets through what only looks like one', () => {
    for (const key of ['pck_ssk_abc', 'SSK_abc', 'sk_abc', 'x ssk_abc', 'ss k_abc']) {
      expect(() => refuseSecretsInBrowserOptions({ publishableClientKey: key }, 'options.'), key).not.toThrow();
    }
  });
});

