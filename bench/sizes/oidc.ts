/** The comparison job with oidc-client-ts: sign in (authorization-code redirect), read the user. */
import { UserManager } from 'oidc-client-ts';

export async function job() {
  const manager = new UserManager({
    authority: 'https://id.example.com',
    client_id: 'client',
    redirect_uri: location.origin + '/callback',
  });
  if (location.search.includes('code=')) await manager.signinCallback();
  else if ((await manager.getUser()) === null) await manager.signinRedirect();
  return manager.getUser();
}
