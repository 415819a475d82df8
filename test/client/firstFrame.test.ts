import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FIRST_FRAME_FALLBACK_MILLIS } from '../../client/connect/afterFirstFrame.js';
import type { BrokerClient } from '../../client/index.js';
import { useEmulator } from '../support/emulator.js';
import { keepUserFromLastVisit, keptUser, newClient, resetBrowser, sleep } from './react/helpers.js';

/**
 * Issue 25: a page's first frame waits for nothing. What it shows first comes from the copy kept
 * since the last visit, synchronously; the connection (Comlink, the host, the worker) loads after
 * the page's next frame when there is such a copy, and at once when there is none (a first visit
 * waits for the broker anyway) or when the app calls something that needs the broker.
 */
const started = vi.hoisted(() => ({ brokers: 0 }));
vi.mock('../../worker/hosts/inProcess.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../worker/hosts/inProcess.js')>();
  return {
    ...original,
    createInProcessBroker: (...args: Parameters<typeof original.createInProcessBroker>) => {
      started.brokers += 1;
      return original.createInProcessBroker(...args);
    },
  };
});

const emulator = useEmulator();
const currentUser = { kind: 'currentUser' } as const;

/** Frames the page has asked for, run only when the test says so. */
let frames: FrameRequestCallback[] = [];
const runFrames = () => {
  for (const frame of frames.splice(0)) frame(performance.now());
};
let visibility: DocumentVisibilityState = 'visible';

beforeEach(() => {
  started.brokers = 0;
  frames = [];
  visibility = 'visible';
  vi.stubGlobal('requestAnimationFrame', (frame: FrameRequestCallback) => frames.push(frame));
  vi.spyOn(document, 'visibilityState', 'get').mockImplementation(() => visibility);
});
afterEach(resetBrowser);

function subscribed(client: BrokerClient): void {
  client.subscribe({ kind: 'session' }, () => undefined);
  client.subscribe(currentUser, () => undefined);
}

describe('with the copy kept since the last visit', () => {
  it('the user is there at once, and no broker starts before the next frame; after it, the tab connects', async () => {
    keepUserFromLastVisit(emulator());
    const client = newClient(emulator());
    subscribed(client);
    expect(client.getSnapshot(currentUser)).toMatchObject({ data: keptUser, isStale: true });
    await sleep(FIRST_FRAME_FALLBACK_MILLIS / 2);
    expect(started.brokers).toBe(0);
    expect(frames.length).toBeGreaterThan(0);
    runFrames();
    await vi.waitFor(() => expect(started.brokers).toBe(1), { timeout: 2000 });
    await vi.waitFor(() => expect(client.mode).toBe('in-process'), { timeout: 5000 });
  });

  it('an action, or connect(), starts the connection at once', async () => {
    keepUserFromLastVisit(emulator());
    const client = newClient(emulator());
    subscribed(client);
    await client.connect();
    expect(started.brokers).toBe(1);
    expect(frames.length).toBeGreaterThan(0);
  });

  it('a hidden page, which paints no frames, connects without waiting for one', async () => {
    keepUserFromLastVisit(emulator());
    visibility = 'hidden';
    subscribed(newClient(emulator()));
    await vi.waitFor(() => expect(started.brokers).toBe(1), { timeout: 2000 });
    expect(frames).toEqual([]);
  });

  it('a visible page whose frame never comes connects after a short wait', async () => {
    keepUserFromLastVisit(emulator());
    subscribed(newClient(emulator()));
    await sleep(FIRST_FRAME_FALLBACK_MILLIS / 2);
    expect(started.brokers).toBe(0);
    await vi.waitFor(() => expect(started.brokers).toBe(1), { timeout: FIRST_FRAME_FALLBACK_MILLIS + 2000 });
    expect(frames.length).toBeGreaterThan(0);
  });

  it('reads the kept copy from storage once, however many queries the page subscribes to', () => {
    keepUserFromLastVisit(emulator());
    const getItem = vi.spyOn(Storage.prototype, 'getItem');
    const client = newClient(emulator());
    subscribed(client);
    client.subscribe({ kind: 'teams' }, () => undefined);
    client.getSnapshot(currentUser);
    expect(getItem.mock.calls.filter(([key]) => key.startsWith('authbroker:snapshot:'))).toHaveLength(1);
  });
});

describe('without a kept copy (a first visit)', () => {
  it('the tab connects at once: it has nothing to show until the broker answers', async () => {
    const client = newClient(emulator());
    subscribed(client);
    await vi.waitFor(() => expect(started.brokers).toBe(1), { timeout: 2000 });
    expect(frames).toEqual([]);
    await vi.waitFor(() => expect(client.getSnapshot(currentUser)).toMatchObject({ status: 'success', data: null }), {
      timeout: 5000,
    });
  });
});
