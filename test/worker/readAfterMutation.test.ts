import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Broker } from '../../worker/broker.js';
import { resetIndexedDb, startTestBroker } from '../support/broker.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';
import { connectTab } from '../support/tabs.js';

/**
 * Found against the real backend (the passkey scenario of the real-service lane): a read right after
 * a mutation, while another tab watches the query, answered the value from before the mutation when
 * the refetch was already under way. The emulator answers too fast to show it unless slowed down.
 */
const emulator = useEmulator();
let broker: Broker;
let locks: Awaited<ReturnType<typeof startTestBroker>>['locks'];
beforeEach(async () => {
  await resetIndexedDb();
  ({ broker, locks } = await startTestBroker(emulator()));
});
afterEach(() => broker.close());

it('a read right after a mutation that invalidated a watched query sees the mutation (the service answers in 300 ms)', async () => {
  const a = await connectTab(broker, locks);
  const b = await connectTab(broker, locks);
  await a.api.signUpWithPassword({
    email: uniqueEmail('stale'),
    password: 'stale-password',
    verificationCallbackUrl: 'http://localhost:5173/x',
  });
  await b.subscribe('teams', { kind: 'teams' });
  await b.waitFor('teams', (s) => s.status === 'success');
  emulator().env.clock.advance(10_000);
  emulator().env.faults.add([{ path: '/api/v1/teams*', method: 'GET', effect: { type: 'latency', ms: 300 } }]);
  await a.api.createTeam({ displayName: 'Fresh team' });
  const teams = (await a.api.read({ kind: 'teams' })) as Array<{ displayName: string }>;
  expect(teams.map((t) => t.displayName)).toContain('Fresh team');
  // The watching tab gets it too.
  await b.waitFor(
    'teams',
    (s) => (s.data as Array<{ displayName: string }> | undefined)?.some((t) => t.displayName === 'Fresh team') === true,
  );
});
