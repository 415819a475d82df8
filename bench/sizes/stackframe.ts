/** The comparison job with the official SDK: sign in with a password, read the user. */
import { StackClientApp } from '@stackframe/js';

export async function job(email: string, password: string) {
  const app = new StackClientApp({
    baseUrl: 'https://api.example.com',
    projectId: 'p',
    publishableClientKey: 'k',
    tokenStore: 'cookie',
  });
  await app.signInWithCredential({ email, password, noRedirect: true });
  return app.getUser();
}
