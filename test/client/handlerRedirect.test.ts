/**
 * `redirectTo(client, page)`: every handler page, with the way back kept as the official SDK keeps
 * it, and never to another site whatever the address bar says.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { handlerPaths, handlerUrls, readReturnTo, redirectTo, RETURN_TO_PARAM } from '../../client/index.js';
import { handlerTarget, type HandlerPage } from '../../client/navigation/handlerRedirect.js';
import { PAGE_ORIGIN, recordNavigations } from './react/helpers.js';

const urls = handlerUrls(handlerPaths(), PAGE_ORIGIN);
const returnPath = { read: readReturnTo, param: RETURN_TO_PARAM };
const target = (page: HandlerPage, from: string, noRedirectBack = false) =>
  handlerTarget(page, urls, new URL(from, PAGE_ORIGIN), returnPath, noRedirectBack);

afterEach(() => {
  vi.unstubAllGlobals();
  history.replaceState(null, '', '/');
});

describe('redirectTo: the handler pages and the way back', () => {
  it('sign-in, sign-up, sign-out and onboarding come back to this page, or pass on where it was to go back to', () => {
    for (const page of ['signIn', 'signUp', 'signOut', 'onboarding'] as const) {
      const path = handlerPaths()[page];
      expect(target(page, '/notes/7?tab=2#top')).toBe(`${path}?after_auth_return_to=%2Fnotes%2F7%3Ftab%3D2%23top`);
      expect(target(page, '/handler/sign-in?after_auth_return_to=%2Fteams')).toBe(
        `${path}?after_auth_return_to=%2Fteams`,
      );
      expect(target(page, '/notes', true)).toBe(path);
    }
  });

  it('the pages on a sign-in’s way pass on a way back and start none; the others take none', () => {
    for (const page of ['mfa', 'forgotPassword', 'passwordReset', 'emailVerification'] as const) {
      const path = handlerPaths()[page];
      expect(target(page, '/handler/sign-in?after_auth_return_to=%2Fteams')).toBe(
        `${path}?after_auth_return_to=%2Fteams`,
      );
      expect(target(page, '/notes')).toBe(path);
    }
    for (const page of [
      'accountSettings',
      'home',
      'afterSignOut',
      'error',
      'teamInvitation',
      'cliAuthConfirm',
    ] as const)
      expect(target(page, '/handler/sign-in?after_auth_return_to=%2Fteams')).toBe(handlerPaths()[page]);
  });

  it('after sign-in and sign-up go back where the page was to go back to, only on this app', () => {
    expect(target('afterSignIn', '/handler/sign-in?after_auth_return_to=%2Fnotes%3Fid%3D3')).toBe('/notes?id=3');
    expect(target('afterSignUp', '/handler/sign-up?after_auth_return_to=%2Fwelcome')).toBe('/welcome');
    expect(target('afterSignIn', '/handler/sign-in')).toBe('/');
    expect(target('afterSignIn', '/handler/sign-in?after_auth_return_to=%2Fnotes', true)).toBe('/');
    for (const evil of ['https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)'])
      expect(target('afterSignIn', `/handler/sign-in?after_auth_return_to=${encodeURIComponent(evil)}`)).toBe('/');
    // …and never passed on to the next page either.
    expect(target('signUp', `/handler/sign-in?after_auth_return_to=${encodeURIComponent('//evil.example')}`)).toBe(
      `/handler/sign-up?after_auth_return_to=%2Fhandler%2Fsign-in%3Fafter_auth_return_to%3D%252F%252Fevil.example`,
    );
  });

  it('pages of a custom layout, under a base or on another origin, are where the paths say', () => {
    const custom = handlerUrls(handlerPaths({ signIn: '/login', onboarding: '/welcome/steps' }), PAGE_ORIGIN);
    const at = (page: HandlerPage) => handlerTarget(page, custom, new URL('/a', PAGE_ORIGIN), returnPath);
    expect(at('signIn')).toBe('/login?after_auth_return_to=%2Fa');
    expect(at('onboarding')).toBe('/welcome/steps?after_auth_return_to=%2Fa');
    expect(at('cliAuthConfirm')).toBe('/handler/cli-auth-confirm');
    expect(at('mfa')).toBe('/handler/mfa');
    const elsewhere = { ...urls, signIn: 'https://auth.example.com/login' };
    expect(handlerTarget('signIn', elsewhere, new URL('/a', PAGE_ORIGIN), returnPath)).toBe(
      'https://auth.example.com/login?after_auth_return_to=%2Fa',
    );
  });

  it("goes through the app's router, or replaces this page", async () => {
    const navigate = vi.fn();
    const client = { urls, navigate };
    history.replaceState(null, '', '/notes?x=1');
    await redirectTo(client, 'signIn');
    expect(navigate).toHaveBeenLastCalledWith('/handler/sign-in?after_auth_return_to=%2Fnotes%3Fx%3D1');
    await redirectTo(client, 'accountSettings');
    expect(navigate).toHaveBeenLastCalledWith('/handler/account-settings');
    const { replace } = recordNavigations();
    await redirectTo(client, 'afterSignOut', { replace: true });
    expect(replace).toHaveBeenCalledWith('/');
    expect(navigate).toHaveBeenCalledTimes(2);
  });
});
