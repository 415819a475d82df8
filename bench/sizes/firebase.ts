/** The comparison job with firebase/auth: sign in with a password, read the user. */
import { initializeApp } from 'firebase/app';
import { getAuth, signInWithEmailAndPassword } from 'firebase/auth';

export async function job(email: string, password: string) {
  const auth = getAuth(initializeApp({ apiKey: 'key', authDomain: 'example.firebaseapp.com', projectId: 'example' }));
  await signInWithEmailAndPassword(auth, email, password);
  return auth.currentUser;
}
