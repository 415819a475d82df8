import 'fake-indexeddb/auto';
import { act, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createBrokerClient } from '../../../client/index.js';
import { AuthProvider, useUser } from '../../../client/react/index.js';
import { useEmulator } from '../../support/emulator.js';

const emulator = useEmulator();

function Who() {
  const user = useUser();
  return <p>{user === null ? 'nobody' : user.primaryEmail}</p>;
}

describe('hooks over an in-process broker', () => {
  it('shows the user once signed in', async () => {
    const em = emulator();
    const client = createBrokerClient({
      baseUrl: em.url,
      projectId: em.projects.demo.id,
      publishableClientKey: em.projects.demo.publishableClientKey,
      mode: 'in-process',
    });
    render(
      <AuthProvider client={client}>
        <Who />
      </AuthProvider>,
    );
    await waitFor(() => expect(screen.getByText('nobody')).toBeTruthy());
    await act(async () => {
      await client.signInWithPassword({ email: 'demo@authbroker.dev', password: 'demo-password' });
    });
    await waitFor(() => expect(screen.getByText('demo@authbroker.dev')).toBeTruthy());
    expect(client.mode).toBe('in-process');
    client.close();
  });
});
