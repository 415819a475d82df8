/**
 * The user's access token for the app's own API: the session's token (renewed when due, once for every tab: the
 * session's single flight), and what a 401 from the app's API means. A refused token is renewed once however many
 * tabs and calls say so (the first invalidates it; the others find the new one, or join the renewal under way); a
 * token the broker got less than REFUSED_AGAIN_MILLIS ago because another was refused is not renewed again, so a server
 * that refuses every token costs one renewal per wave of calls, never one per call.
 */
import type { AppToken } from '../../contract/appRequests.js';
import type { Clock } from '../../protocol/clock.js';

/** A token the broker fetched because the app's API refused the last one, refused again this soon: no new renewal. */
export const REFUSED_AGAIN_MILLIS = 10_000;
const REMEMBERED = 8;

/** What app requests use of the user's session (worker/session/session.ts). */
export interface AppSession {
  start(): Promise<void>;
  getAccessToken(): Promise<string | null>;
  /** The held token if it can be sent as it is (not due, not refused); null otherwise. */
  currentAccessToken(): Promise<string | null>;
  invalidateAccessToken(token: string): void;
  /** When the held token expires, by this device's clock. */
  readonly accessTokenExpiresAtMillis: number | null;
}

export interface AppTokens {
  /** The token to send now; after `refused` (a 401 from the app's API), a renewed one unless renewing cannot help. */
  token(refused?: string): Promise<AppToken>;
}

export function appTokens(session: AppSession, clock: Clock, marginMillis: number): AppTokens {
  /** Tokens fetched because one was refused, with when: refused again soon, they are not renewed again. */
  const fetchedAfterRefusal = new Map<string, number>();
  const remember = (token: string) => {
    fetchedAfterRefusal.set(token, clock.now());
    if (fetchedAfterRefusal.size > REMEMBERED) fetchedAfterRefusal.delete(fetchedAfterRefusal.keys().next().value!);
  };
  return {
    async token(refused) {
      await session.start();
      if (refused !== undefined && (await session.currentAccessToken()) === refused) {
        const fetchedAt = fetchedAfterRefusal.get(refused);
        // Brand new and refused already: the server refuses it for another reason than its age.
        if (fetchedAt !== undefined && clock.now() - fetchedAt < REFUSED_AGAIN_MILLIS)
          return { accessToken: refused, reuseUntilMillis: null };
        session.invalidateAccessToken(refused);
      }
      const accessToken = await session.getAccessToken();
      if (accessToken === null) return { accessToken, reuseUntilMillis: null };
      if (refused !== undefined && accessToken !== refused && !fetchedAfterRefusal.has(accessToken))
        remember(accessToken);
      const expires = session.accessTokenExpiresAtMillis;
      return { accessToken, reuseUntilMillis: expires === null ? null : expires - marginMillis };
    },
  };
}

const bySession = new WeakMap<AppSession, AppTokens>();

/** The one `AppTokens` of a session (what it remembers of refusals is the broker's, whichever tab asks). */
export function appTokensOf(session: AppSession, clock: Clock, marginMillis: number): AppTokens {
  let tokens = bySession.get(session);
  if (tokens === undefined) bySession.set(session, (tokens = appTokens(session, clock, marginMillis)));
  return tokens;
}
