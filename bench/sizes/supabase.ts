/** The comparison job with @supabase/auth-js: sign in with a password, read the user. */
import { GoTrueClient } from '@supabase/auth-js';

export async function job(email: string, password: string) {
  const auth = new GoTrueClient({ url: 'https://example.supabase.co/auth/v1' });
  await auth.signInWithPassword({ email, password });
  return (await auth.getUser()).data.user;
}
