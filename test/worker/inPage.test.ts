import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import type { QuerySpec } from '../../contract/queries.js';
import type { SerializedError } from '../../protocol/errors/errors.js';
import { openInPageBroker, type InPageBroker } from '../../worker/hosts/inPage.js';
import { useEmulator } from '../support/emulator.js';
import { resetIndexedDb } from '../support/broker.js';

/**
 * The in-page broker ships as a bundle of its own (`dist/worker/hosts/inPage.js`), with its own
 * copies of the error classes: the tab gets its failures rebuilt by the function it passes in (its
 * `deserializeError`), so that the app meets the tab's classes whatever the host, as over a worker's port.
 */
const emulator = useEmulator();
const opened: InPageBroker[] = [];
afterEach(async () => {
  for (const broker of opened.splice(0)) broker.close();
  await resetIndexedDb();
});

/** What the tab's side makes of a failure: here a class of the test's own, which no broker module knows. */
class TabSideError extends Error {
  constructor(readonly serialized: SerializedError) {
    super(serialized.message);
  }
}

const hello = { tabId: 'tab', version: 'test' };
const listener = { deliver: () => undefined };

function configOf() {
  const { demo } = emulator().projects;
  return { baseUrl: emulator().url, projectId: demo.id, publishableClientKey: demo.publishableClientKey };
}

async function open(config = configOf()): Promise<InPageBroker> {
  const broker = await openInPageBroker(config, hello, listener, (serialized) => new TabSideError(serialized));
  opened.push(broker);
  return broker;
}

describe('the in-page broker as the tab opens it', () => {
  it('answers calls as the broker does', async () => {
    const { api } = await open();
    expect(await api.read({ kind: 'session' })).toMatchObject({ status: 'signed-out' });
  });

  it("a call that fails rejects with the tab's error, built from the broker's plain-data form", async () => {
    const { api } = await open();
    const failure = await api.read({ kind: 'no-such-query' } as unknown as QuerySpec).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TabSideError);
    expect((failure as TabSideError).serialized).toMatchObject({ kind: 'invalid-argument', code: 'INVALID_ARGUMENT' });
  });

  it("a broker that cannot start for the options it was given fails with the tab's error too", async () => {
    const failure = await open({ ...configOf(), publishableClientKey: 'ssk_secret' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TabSideError);
    expect((failure as TabSideError).serialized).toMatchObject({ code: 'UNSAFE_CREDENTIALS' });
  });
});
