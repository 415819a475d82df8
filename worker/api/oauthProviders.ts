import type { BrokerApi } from '../../contract/api.js';
import * as endpoints from '../../protocol/endpoints/index.js';
import { camelize } from '../../protocol/models.js';
import type { ApiContext } from './context.js';

type OAuthProviderMethods = 'updateOAuthProvider' | 'deleteOAuthProvider';

/**
 * The signed-in user's OAuth providers (linked provider accounts). A change shows in the providers, in the connected
 * accounts (those that give tokens) and, for a removal, in the user's own `oauthProviders`.
 */
export function oauthProviderMethods({
  transports,
  queries,
}: Pick<ApiContext, 'transports' | 'queries'>): Pick<BrokerApi, OAuthProviderMethods> {
  const t = transports.client;
  const providersChanged = () => {
    queries.invalidate({ kind: 'oauthProviders' });
    queries.invalidate({ kind: 'connectedAccounts' });
  };
  return {
    async updateOAuthProvider(oauthProviderId, { allowSignIn, allowConnectedAccounts }) {
      const provider = camelize(
        await endpoints.updateOAuthProvider(t, 'me', oauthProviderId, {
          ...(allowSignIn === undefined ? {} : { allow_sign_in: allowSignIn }),
          ...(allowConnectedAccounts === undefined ? {} : { allow_connected_accounts: allowConnectedAccounts }),
        }),
      );
      providersChanged();
      return provider;
    },
    async deleteOAuthProvider(oauthProviderId) {
      await endpoints.deleteOAuthProvider(t, 'me', oauthProviderId);
      providersChanged();
      queries.invalidate({ kind: 'currentUser' });
    },
  };
}
