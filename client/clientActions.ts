/**
 * The client's methods that wait for something, then call it by the same name: the broker's
 * actions wait for the connection (the contract's list, typed by BrokerActions), OAuth's browser
 * steps for their module, loaded when first used (most pages never start or finish a flow).
 */
import type { BrokerClient, OAuthModule } from './brokerClient.js';

/** OAuth's browser steps (`oauth.ts`): methods of the client that load their module when first called. */
export const OAUTH_STEPS = [
  'signInWithOAuth',
  'linkOAuthAccount',
  'handleOAuthCallback',
  'startOAuthFlow',
  'completeOAuthFlow',
] as const;
type OAuthSteps = ReturnType<OAuthModule['oauthMethods']>;
/** Fails to compile unless the list names every step, each typed in BrokerClient as oauth.ts makes it. */
const everyStepListed: [keyof OAuthSteps] extends [(typeof OAUTH_STEPS)[number]]
  ? OAuthSteps extends Pick<BrokerClient, (typeof OAUTH_STEPS)[number]>
    ? true
    : never
  : never = true;
void everyStepListed;

/**
 * Gives `client` a method for each of `names` it has not got: one that waits for `load`, then calls
 * the method of that name on what it loaded. Written onto the client itself: an object of them
 * copied over would cost a copy before the first frame.
 */
export function forwardCalls(
  client: Record<string, unknown>,
  names: readonly string[],
  load: () => Promise<object>,
): void {
  for (const name of names) {
    if (name in client) continue;
    client[name] = async (...args: unknown[]) =>
      ((await load()) as Record<string, (...a: unknown[]) => Promise<unknown>>)[name]!(...args);
  }
}
