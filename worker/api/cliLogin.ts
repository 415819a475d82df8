/**
 * The browser's side of a CLI login (the app's confirmation page): the broker hands the waiting CLI
 * this browser's session, which only it holds, or, with nobody signed in here, takes over the CLI's
 * own anonymous user for the page to upgrade by signing up.
 */
import type { BrokerApi, CliLoginConfirmation } from '../../contract/api.js';
import * as endpoints from '../../protocol/endpoints/index.js';
import { ClientError, HttpStatusError } from '../../protocol/errors/errors.js';
import { partialUserOfAccessToken } from '../../protocol/partialUser.js';
import type { ApiContext } from './context.js';

/** The service's 400 for a login code it no longer takes, said as ours; anything else as it came. */
function asInvalidCode(error: unknown): unknown {
  return error instanceof HttpStatusError && error.status === 400 && /login code/i.test(error.body)
    ? new ClientError(
        'CLI_LOGIN_INVALID',
        'This CLI login link is unknown, has expired, or was confirmed already: start the login again from the command line.',
      )
    : error;
}

export function cliLoginMethods({
  session,
  transports,
}: Pick<ApiContext, 'session' | 'transports'>): Pick<BrokerApi, 'confirmCliLogin'> {
  const t = transports.client;

  /** The signed-in user, unless nobody (or only an anonymous user) is signed in here. */
  async function signedInUser(): Promise<{ userId: string; refreshToken: string } | null> {
    await session.start();
    if (session.state().status !== 'signed-in') return null;
    const token = (await session.currentAccessToken()) ?? (await session.getAccessToken());
    const user = token === null ? null : partialUserOfAccessToken(token);
    const refreshToken = await session.getRefreshToken();
    return user !== null && !user.isAnonymous && refreshToken !== null ? { userId: user.id, refreshToken } : null;
  }

  async function confirm(loginCode: string): Promise<CliLoginConfirmation> {
    const user = await signedInUser();
    if (user !== null) {
      await endpoints.completeCliLogin(t, { login_code: loginCode, refresh_token: user.refreshToken });
      return { status: 'confirmed', userId: user.userId };
    }
    const { cli_session_state: cliUser } = await endpoints.checkCliLogin(t, loginCode);
    // A guest of this browser's own is not replaced by the CLI's: signing up upgrades it, then it confirms.
    if (cliUser !== 'anonymous' || session.state().status === 'signed-in') return { status: 'sign-in-required' };
    const claimed = await endpoints.claimCliAnonymousSession(t, loginCode);
    const guest = partialUserOfAccessToken(claimed.access_token);
    await session.signIn(claimed, guest?.id ?? null);
    return { status: 'sign-up-required', userId: guest?.id ?? '' };
  }

  return {
    confirmCliLogin: (loginCode) =>
      confirm(loginCode).catch((error: unknown) => {
        throw asInvalidCode(error);
      }),
  };
}
