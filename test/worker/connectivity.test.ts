import { describe, expect, it } from 'vitest';
import { Connectivity, type ConnectivitySnapshot } from '../../worker/connectivity.js';
import { compressedClock } from '../support/broker.js';

/** A network where some URLs answer and others fail. */
function network(answers: (url: string) => boolean): typeof fetch {
  return async (input) => {
    const url = String(input);
    if (!answers(url)) throw new TypeError('fetch failed');
    return new Response('ok', { status: 200 });
  };
}

/** Waits until the state is `wanted` and a probe has reported (diagnostics present). */
async function settledState(connectivity: Connectivity, wanted: ConnectivitySnapshot['state']): Promise<ConnectivitySnapshot> {
  const done = () => connectivity.snapshot().state === wanted && connectivity.snapshot().diagnostics !== null;
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  return connectivity.snapshot();
}

describe('connectivity from probes', () => {
  it('the API unreachable while /health answers is degraded, not online', async () => {
    const connectivity = new Connectivity({ baseUrl: 'http://api.test', fetch: network((url) => url.endsWith('/health')), clock: compressedClock });
    connectivity.recordNetworkFailure(new TypeError('fetch failed'));
    const snapshot = await settledState(connectivity, 'degraded');
    expect(snapshot.state).toBe('degraded');
    expect(snapshot.diagnostics).toMatchObject({ apiRoot: { reachable: false }, health: { reachable: true } });
    connectivity.close();
  });

  it('nothing reachable is offline; everything reachable again is online', async () => {
    let up = false;
    const connectivity = new Connectivity({ baseUrl: 'http://api.test', fetch: network(() => up), clock: compressedClock });
    connectivity.recordNetworkFailure(new TypeError('fetch failed'));
    expect((await settledState(connectivity, 'offline')).state).toBe('offline');
    up = true;
    expect((await settledState(connectivity, 'online')).state).toBe('online');
    connectivity.close();
  });
});
