/**
 * What tabs read from the user's access token itself, asking the service nothing: the user it names
 * (the partial user) and the header for the app's own server. Neither ever carries the refresh token.
 */
import type { BrokerApi } from '../../contract/api.js';
import { authHeadersFor } from '../../protocol/authHeaders.js';
import { partialUserOfAccessToken } from '../../protocol/partialUser.js';
import type { ApiContext } from './context.js';

export function tokenUseMethods({
  session,
}: Pick<ApiContext, 'session'>): Pick<BrokerApi, 'getPartialUser' | 'getAuthHeaders'> {
  return {
    async getPartialUser(options = {}) {
      await session.start();
      if (session.state().status !== 'signed-in') return null;
      // The token held, or, when it is due, a renewed one: what every other call would send now.
      const token = (await session.currentAccessToken()) ?? (await session.getAccessToken());
      const user = token === null ? null : partialUserOfAccessToken(token);
      return user !== null && (!user.isAnonymous || options.includeAnonymous === true) ? user : null;
    },
    async getAuthHeaders() {
      return authHeadersFor(await session.getAccessToken());
    },
  };
}
