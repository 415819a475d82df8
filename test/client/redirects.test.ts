import { describe, expect, it, vi } from 'vitest';
import {
  checkRedirectTarget,
  handlerPaths,
  handlerUrls,
  readReturnTo,
  safeRedirectTarget,
  type OAuthResult,
} from '../../client/index.js';
import { oauthMethods } from '../../client/oauth.js';
import type { BrokerApi } from '../../contract/api.js';
import { PAGE_ORIGIN, recordNavigations } from './react/helpers.js';

const rules = { origin: PAGE_ORIGIN };

/** Every form an open redirect takes that we have seen or that browsers reinterpret. */
const UNSAFE = [
  'javascript:alert(document.cookie)',
  'JaVaScRiPt:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'https://evil.example/phish',
  'http://localhost:3001/other-port',
  '//evil.example/path',
  '/\\evil.example',
  '\\\\evil.example',
  '/\t/evil.example',
  '/\n/evil.example',
  ' //evil.example',
  'https://localhost:3000@evil.example/',
  'https:evil.example',
];

describe('redirects after sign-in stay in the app', () => {
  it.each(UNSAFE)('refuses %j with UNSAFE_REDIRECT', (target) => {
    expect(() => checkRedirectTarget(target, rules)).toThrow(
      expect.objectContaining({ name: 'ClientError', code: 'UNSAFE_REDIRECT' }),
    );
    const refused = vi.fn();
    expect(safeRedirectTarget(target, rules, '/home', refused)).toBe('/home');
    expect(refused).toHaveBeenCalledWith(expect.objectContaining({ code: 'UNSAFE_REDIRECT' }));
  });

  it.each([
    ['/projects/42?tab=keys#top', `${PAGE_ORIGIN}/projects/42?tab=keys#top`],
    [`${PAGE_ORIGIN}/settings`, `${PAGE_ORIGIN}/settings`],
    ['settings', `${PAGE_ORIGIN}/settings`],
    ['/%2F%2Fevil.example', `${PAGE_ORIGIN}/%2F%2Fevil.example`],
  ])('follows %j (same origin)', (target, absolute) => {
    expect(checkRedirectTarget(target, rules)).toBe(absolute);
  });

  it('follows an origin the app allowed, and only that one', () => {
    const allowing = { origin: PAGE_ORIGIN, allowedOrigins: ['https://app.example.com'] };
    expect(checkRedirectTarget('https://app.example.com/after', allowing)).toBe('https://app.example.com/after');
    expect(() => checkRedirectTarget('https://app.example.com.evil.example/after', allowing)).toThrow(
      expect.objectContaining({ code: 'UNSAFE_REDIRECT' }),
    );
  });

  it('a page whose origin is not http(s) (a WebView app’s, an extension’s) follows its own origin and refuses every other', () => {
    const app = { origin: 'capacitor://localhost' };
    expect(checkRedirectTarget('/home?x=1', app)).toBe('capacitor://localhost/home?x=1');
    expect(checkRedirectTarget('capacitor://localhost/settings', app)).toBe('capacitor://localhost/settings');
    for (const target of [
      'capacitor://evil.example/home',
      'https://localhost/home',
      'javascript:alert(1)',
      'data:text/html,x',
      'file:///etc/passwd',
    ]) {
      expect(() => checkRedirectTarget(target, app)).toThrow(expect.objectContaining({ code: 'UNSAFE_REDIRECT' }));
    }
    expect(readReturnTo('capacitor://localhost/handler/sign-in?after_auth_return_to=%2Fhome', app)).toBe('/home');
    // A page without a host (a file) has no other page it may send anyone to.
    expect(() => checkRedirectTarget('/home', { origin: 'file://' })).toThrow(/file: URLs are never followed/);
  });

  it('readReturnTo: the after_auth_return_to of a page, or null when it is missing or unsafe', () => {
    const page = (value: string) => `${PAGE_ORIGIN}/handler/sign-in?after_auth_return_to=${encodeURIComponent(value)}`;
    expect(readReturnTo(page('/teams?x=1'), rules)).toBe('/teams?x=1');
    expect(readReturnTo(`${PAGE_ORIGIN}/handler/sign-in`, rules)).toBeNull();
    for (const target of UNSAFE) expect(readReturnTo(page(target), rules), target).toBeNull();
  });
});

/**
 * Return paths that pass an origin check yet resolve to another site once used as a path: dot
 * segments, doubled slashes and the app's own origin with `//` after it all leave `//evil.example`
 * as the pathname; percent-encoded slashes, dots, tabs and newlines do the same once decoded.
 */
const SLIPPING_RETURN_PATHS = [
  '/.//evil.example/phish',
  '/x/..//evil.example',
  '/x/../..//evil.example/phish',
  '/./..//evil.example',
  '/%2e//evil.example',
  '/x/%2e%2e//evil.example',
  '/x/%2E%2E//evil.example',
  `${PAGE_ORIGIN}//evil.example/phish`,
  `${PAGE_ORIGIN}/.//evil.example/phish`,
  `${PAGE_ORIGIN}///evil.example`,
  '///evil.example',
  '/%2F%2Fevil.example',
  '/%2f/evil.example',
  '/%5Cevil.example',
  '/%5c%5cevil.example',
  '/%09/evil.example',
  '/%0a/evil.example',
  '/%0d%0a/evil.example',
  '/%20/evil.example',
  '/%zz',
  '/\r\n/evil.example',
];

describe('readReturnTo gives only paths that cannot leave the origin', () => {
  const page = (value: string) => `${PAGE_ORIGIN}/handler/sign-in?after_auth_return_to=${encodeURIComponent(value)}`;

  it.each(SLIPPING_RETURN_PATHS)('refuses %j', (target) => {
    expect(readReturnTo(page(target), rules)).toBeNull();
  });

  it.each([
    ['/teams/42?tab=members#top', '/teams/42?tab=members#top'],
    [`${PAGE_ORIGIN}/settings?x=1`, '/settings?x=1'],
    ['/a/../settings', '/settings'],
    ['/a/./b//c', '/a/b//c'],
    ['/my%20files', '/my%20files'],
    ['/', '/'],
  ])('keeps %j as %j', (target, path) => {
    expect(readReturnTo(page(target), rules)).toBe(path);
  });

  it('every path it gives stays on the origin as a location, a link and once decoded', () => {
    const anchor = document.createElement('a');
    for (const target of [...SLIPPING_RETURN_PATHS, ...UNSAFE, '/teams', '/a/../b', `${PAGE_ORIGIN}/x`]) {
      const path = readReturnTo(page(target), rules);
      if (path === null) continue;
      expect(new URL(path, PAGE_ORIGIN).origin, target).toBe(PAGE_ORIGIN);
      anchor.href = path;
      expect(new URL(anchor.href).origin, target).toBe(PAGE_ORIGIN);
      expect(new URL(decodeURIComponent(path).replace(/[\u0000-\u0020]/g, ''), PAGE_ORIGIN).origin, target).toBe(
        PAGE_ORIGIN,
      );
    }
  });
});

describe('the OAuth steps in the tab', () => {
  const urls = handlerUrls(handlerPaths({ afterSignIn: '/dashboard' }), PAGE_ORIGIN);
  const signedIn = (afterCallbackRedirectUrl: string | null): OAuthResult => ({
    status: 'signed-in',
    userId: 'u',
    isNewUser: false,
    type: 'authenticate',
    afterCallbackRedirectUrl,
  });

  it('a callback whose target is another site goes to the app’s own page instead, and says why', async () => {
    history.replaceState(null, '', '/handler/oauth-callback?code=c&state=s');
    const { replace } = recordNavigations();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const api = { completeOAuth: async () => signedIn('https://evil.example/steal') };
    await oauthMethods(async () => api as unknown as BrokerApi, urls, [], {
      checkRedirectTarget,
      safeRedirectTarget,
    }).handleOAuthCallback();
    expect(replace.mock.calls).toEqual([[urls.afterSignIn]]);
    expect(warn.mock.calls[0]![0]).toMatch(/Refused to redirect/);
  });

  it('signInWithOAuth refuses an unsafe after-callback URL before anything starts', async () => {
    const { assign } = recordNavigations();
    const startOAuth = vi.fn();
    const methods = oauthMethods(async () => ({ startOAuth }) as unknown as BrokerApi, urls, [], {
      checkRedirectTarget,
      safeRedirectTarget,
    });
    for (const target of ['javascript:alert(1)', 'https://evil.example/', '/\t/evil.example']) {
      await expect(methods.signInWithOAuth('github', { afterCallbackRedirectUrl: target })).rejects.toMatchObject({
        code: 'UNSAFE_REDIRECT',
      });
    }
    expect(startOAuth).not.toHaveBeenCalled();
    expect(assign).not.toHaveBeenCalled();
  });
});
