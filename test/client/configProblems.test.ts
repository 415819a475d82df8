import { afterEach, describe, expect, it, vi } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { demoOptions, newClient, resetBrowser } from './react/helpers.js';
import { createBrokerClient } from '../../client/index.js';
import { forwardBrowserState } from '../../client/connect/browserState.js';
import type { BrokerApi } from '../../contract/api.js';

/**
 * Issue 40, items 1 and 3, on the tab's side: a wrong project id is said in the console when the tab connects, naming
 * the option, once; a window that gets the focus has the broker verify its connectivity; an out-of-range
 * connectivityCheckMillis fails the connection, naming the option.
 */
const emulator = useEmulator();
afterEach(async () => {
  vi.restoreAllMocks();
  await resetBrowser();
});

describe('what the tab says when it connects', () => {
  it('a project id the service does not know: one console error naming the projectId option, none for a right config', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const wrongId = '0e5c2a7b-4d1f-4a8e-9c3b-2f6d8e1a0b4c';
    const right = newClient(emulator(), { mode: 'in-process' });
    await right.connect();
    const wrong = newClient(emulator(), { mode: 'in-process', projectId: wrongId });
    await wrong.connect();
    await vi.waitFor(() => expect(errors).toHaveBeenCalled());
    const said = errors.mock.calls.map((call) => String(call[0]));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(`No project has the ID ${wrongId}`);
    expect(said[0]).toContain('projectId option');
  });

  it('the focus counts as looking: the broker is told the tab is visible, and nothing after the forwarding stops', async () => {
    const reports: unknown[] = [];
    const api = {
      reportBrowserState: async (state: unknown) => void reports.push(state),
      goodbye: async () => undefined,
    };
    const stop = forwardBrowserState(api as unknown as BrokerApi);
    reports.length = 0;
    window.dispatchEvent(new Event('focus'));
    expect(reports).toEqual([{ visible: true }]);
    stop();
    window.dispatchEvent(new Event('focus'));
    expect(reports).toHaveLength(1);
  });

  it('connectivityCheckMillis out of range fails the connection with an InvalidArgumentError naming it', async () => {
    const client = createBrokerClient(demoOptions(emulator(), { mode: 'in-process', connectivityCheckMillis: 10 }));
    await expect(client.connect()).rejects.toMatchObject({
      name: 'InvalidArgumentError',
      argument: 'options.connectivityCheckMillis',
    });
    client.close();
  });
});
