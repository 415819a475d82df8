import { decodeJwt } from 'jose';
import type { BrokerApi, SignedInResult } from '../../contract/api.js';
import * as endpoints from '../../protocol/endpoints/index.js';
import { readSignInTokens } from '../../protocol/signInResponse.js';
import type { ApiContext, ApiSession } from './context.js';

/** Whether an access token is an anonymous user's (its `is_anonymous` claim); false for one that cannot be read. */
export function isAnonymousToken(accessToken: string): boolean {
  try {
    return decodeJwt(accessToken).is_anonymous === true;
  } catch {
    return false;
  }
}

/**
 * The signed-in user's access token when that user is anonymous, else null. The token's claim is
 * the service's own word; an expired token is renewed to read it (a session that cannot be renewed
 * has no user to upgrade).
 */
export async function anonymousAccessToken(session: ApiSession): Promise<string | null> {
  await session.start();
  if (session.state().status !== 'signed-in') return null;
  const token = (await session.currentAccessToken()) ?? (await session.getAccessToken().catch(() => null));
  return token !== null && isAnonymousToken(token) ? token : null;
}

/**
 * How a sign-up treats the signed-in user: while an anonymous user is signed in, its token goes
 * with the request, so that the service upgrades that user (same id) instead of creating another.
 */
export async function signUpUser(session: ApiSession): Promise<'optional' | 'none'> {
  return (await anonymousAccessToken(session)) === null ? 'none' : 'optional';
}

/**
 * One anonymous sign-up at a time per broker (keyed by its config, which every per-call copy of the context shares).
 */
const inFlight = new WeakMap<object, Promise<SignedInResult>>();

export function anonymousMethods({
  config,
  transports,
  session,
}: Pick<ApiContext, 'config' | 'transports' | 'session'>): Pick<BrokerApi, 'signUpAnonymously'> {
  async function signUp(): Promise<SignedInResult> {
    await session.start();
    const state = session.state();
    // Someone is signed in already (anonymous or not): that is the user, and nothing is replaced.
    if (state.status === 'signed-in') return { status: 'signed-in', userId: state.userId ?? '', isNewUser: false };
    // A new user has no second factor: the answer is always a session.
    const tokens = readSignInTokens(await endpoints.signUpAnonymously(transports.client), 'The anonymous sign-up');
    await session.signIn(tokens, tokens.user_id);
    const now = session.state();
    return {
      status: 'signed-in',
      userId: tokens.user_id ?? (now.status === 'signed-in' ? (now.userId ?? '') : ''),
      isNewUser: true,
    };
  }
  return {
    signUpAnonymously() {
      let running = inFlight.get(config);
      if (running === undefined) {
        running = signUp().finally(() => inFlight.delete(config));
        inFlight.set(config, running);
      }
      return running;
    },
  };
}
