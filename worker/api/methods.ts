/**
 * The service methods as one module: what tabs ask of the service (signing in and out, the account,
 * teams, administration). The broker loads it on the first call of one (worker/services.ts), so a
 * broker whose tabs only read never downloads it; a service worker, which cannot import() once
 * installed, gets it with its script.
 */
import { fetchBilling, fetchInvoices, fetchItem, fetchProducts } from '../../contract/paymentQueries.js';
import type { LazyFetches } from '../../contract/queries.js';
import { partialUserOfAccessToken } from '../../protocol/partialUser.js';
import { appRequestMethods } from '../appRequests/appRequestMethods.js';
import { accountMethods } from './account.js';
import { adminMethods } from './admin.js';
import { anonymousMethods } from './anonymous.js';
import { authMethods } from './auth.js';
import { cliLoginMethods } from './cliLogin.js';
import type { ApiContext, ServiceMethods } from './context.js';
import { oauthMethods } from './oauth.js';
import { oauthProviderMethods } from './oauthProviders.js';
import { ownedApiKeyMethods } from './ownedApiKeys.js';
import { passwordMethods } from './password.js';
import { paymentMethods } from './payments.js';
import { teamMethods } from './teams.js';
import { tokenUseMethods } from './tokenUses.js';

/** The service methods, each running with `context` (the broker's parts, or an action's attributed copy of them). */
export function createServices(context: ApiContext): ServiceMethods {
  return {
    ...authMethods(context),
    ...anonymousMethods(context),
    ...oauthMethods(context),
    ...passwordMethods(context),
    ...accountMethods(context),
    ...teamMethods(context),
    ...adminMethods(context),
    ...paymentMethods(context),
    ...ownedApiKeyMethods(context),
    ...oauthProviderMethods(context),
    ...tokenUseMethods(context),
    ...cliLoginMethods(context),
    ...appRequestMethods(context),
  };
}

/**
 * The fetches few pages need travel with the methods (contract/queries.ts, `FetchContext.lazyFetches`). A plain
 * object, not `export * as`: esbuild's namespace helper would be one more chunk that every lazy part imports.
 */
export const lazyFetches: LazyFetches = {
  fetchItem,
  fetchProducts,
  fetchBilling,
  fetchInvoices,
  partialUserOfAccessToken,
};

/** How a host hands the service methods to its brokers: a dynamic import where the host allows one. */
export type LoadServices = () => Promise<{
  createServices: typeof createServices;
  lazyFetches: LazyFetches;
}>;
