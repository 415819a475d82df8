/** The comparison job with @auth0/auth0-spa-js: sign in (redirect flow, its only sign-in), read the user. */
import { createAuth0Client } from '@auth0/auth0-spa-js';

export async function job() {
  const auth0 = await createAuth0Client({ domain: 'example.auth0.com', clientId: 'client' });
  if (location.search.includes('code=')) await auth0.handleRedirectCallback();
  else if (!(await auth0.isAuthenticated())) await auth0.loginWithRedirect();
  return auth0.getUser();
}
