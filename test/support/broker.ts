import 'fake-indexeddb/auto';
import type { RunningEmulator } from '../../emulator/index.js';
import type { Clock } from '../../protocol/retry.js';
import { systemClock } from '../../protocol/retry.js';
import type { Broker } from '../../worker/broker.js';
import { createBroker } from '../../worker/index.js';
import { brokerKeyOf } from '../../worker/config.js';
import type { BrokerHostOptions } from '../../worker/hostOptions.js';
import { LocalLockManager } from './locks.js';

/**
 * A clock that reads the emulator's time (which tests move forward), so both agree on expiry.
 * Waits (retry backoff, probes) are compressed to at most 20 ms: tests never sleep for seconds.
 */
export function emulatorClock(emulator: RunningEmulator): Clock {
  return { ...compressedClock, now: () => emulator.env.clock.now() };
}

export const compressedClock: Clock = {
  ...systemClock,
  sleep: (millis, signal) => systemClock.sleep(Math.min(millis, 20), signal),
};

export interface TestBroker {
  broker: Broker;
  locks: LocalLockManager;
}

/** A SharedWorker-mode broker for the emulator's demo project, on fake IndexedDB and local locks. */
export async function startTestBroker(
  emulator: RunningEmulator,
  options: Partial<BrokerHostOptions> & {
    locks?: LocalLockManager;
    projectKeys?: 'demo';
    tokenMarginMillis?: number;
    refetchOnReturn?: boolean;
    extraRequestHeaders?: Record<string, string>;
    tokenStore?: 'indexeddb' | 'memory';
    connectivityCheckMillis?: number;
    projectId?: string;
  } = {},
): Promise<TestBroker> {
  const locks = options.locks ?? new LocalLockManager();
  const { demo, internal } = emulator.projects;
  const broker = await createBroker(
    {
      baseUrl: emulator.url,
      projectId: options.projectId ?? demo.id,
      publishableClientKey: demo.publishableClientKey,
      internalPublishableClientKey: internal.publishableClientKey,
      ...(options.connectivityCheckMillis === undefined
        ? {}
        : { connectivityCheckMillis: options.connectivityCheckMillis }),
      ...(options.tokenMarginMillis === undefined ? {} : { tokenMarginMillis: options.tokenMarginMillis }),
      ...(options.refetchOnReturn === undefined ? {} : { refetchOnReturn: options.refetchOnReturn }),
      ...(options.extraRequestHeaders === undefined ? {} : { extraRequestHeaders: options.extraRequestHeaders }),
      ...(options.tokenStore === undefined ? {} : { tokenStore: options.tokenStore }),
    },
    { mode: 'shared-worker', clock: emulatorClock(emulator), ...options, locks },
  );
  return { broker, locks };
}

/** Token requests the emulator served (refresh grants and the session refresh endpoint). */
export async function tokenRequests(emulator: RunningEmulator): Promise<number> {
  return emulator.env.stats.snapshot().token_refreshes;
}

/** Forgets every database of this test file's fake IndexedDB. */
export async function resetIndexedDb(): Promise<void> {
  const databases = await indexedDB.databases();
  await Promise.all(
    databases.map(
      (db) =>
        new Promise<void>((resolve) => {
          const request = indexedDB.deleteDatabase(db.name!);
          request.onsuccess = request.onerror = request.onblocked = () => resolve();
        }),
    ),
  );
}

/** The storage slot of the demo project's user session (sessions are keyed by service and project). */
export function demoSessionSlot(emulator: Pick<RunningEmulator, 'url' | 'projects'>): string {
  return brokerKeyOf({ baseUrl: emulator.url, projectId: emulator.projects.demo.id });
}

export { everythingStored } from './indexedDbDump.js';
