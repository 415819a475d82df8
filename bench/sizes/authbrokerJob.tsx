/** The comparison job with authbroker: sign in with a password, show the user (React hooks). */
import { createRoot } from 'react-dom/client';
import { createBrokerClient } from '../../client/index.js';
import { AuthProvider, useUser } from '../../client/react/index.js';

const client = createBrokerClient({
  baseUrl: 'https://api.example.com',
  projectId: '00000000-0000-4000-8000-000000000001',
  publishableClientKey: 'pck_x',
  sharedWorker: '/authbroker-shared-worker.js',
});

function Greeting() {
  const user = useUser();
  return <p>{user?.displayName ?? user?.primaryEmail ?? 'signed out'}</p>;
}

export async function job(email: string, password: string): Promise<void> {
  createRoot(document.body).render(
    <AuthProvider client={client}>
      <Greeting />
    </AuthProvider>,
  );
  await client.signInWithPassword({ email, password });
}
