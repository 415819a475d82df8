/**
 * Writes that wait out an outage, as the broker's own chunk holds them: the pending changes tabs watch, the service
 * methods with their queueable writes routed through the queue, and the queue itself (queue.ts), a lazy part loaded
 * at the broker's start when the app asked for it (`offlineWrites: true`). Without it, every write fails at once while
 * the service is away (NETWORK_OFFLINE, NETWORK_UNREACHABLE), as before: keeping a write the app did not expect to be
 * kept could apply it long after the user gave up on it.
 */
import type { AppRequest, AppResponse, PendingChange } from '../../contract/appRequests.js';
import { Emitter, type Watchable } from '../../contract/events.js';
import { ClientError, InvalidArgumentError } from '../../protocol/errors/errors.js';
import type { ServiceMethods } from '../api/context.js';
import { loadOnDemand } from '../lazy/loadOnDemand.js';
import type { LoadWrites, WriteQueue, WriteQueueParts } from './writeQueueParts.js';
import { writeKit } from './writeKit.js';

export interface OfflineWrites {
  /** What tabs watch (`usePendingChanges()`). */
  readonly pending: Watchable<PendingChange[]>;
  /** The service methods each tab's call runs with (`byTab`), through the queue when the app keeps writes. */
  wrap<T>(byTab: (tab: T, method: string) => ServiceMethods): (tab: T, method: string) => ServiceMethods;
  sendAppRequest(request: AppRequest): Promise<AppResponse>;
  dismiss(id: string): Promise<void>;
  /** The broker is assembled: the queue loads (and sends what waits) when the app keeps writes. */
  start(parts: () => Omit<WriteQueueParts, 'kit'>): void;
  close(): void;
}

export function offlineWrites(enabled: boolean, load: LoadWrites | undefined): OfflineWrites {
  const changed = new Emitter<PendingChange[]>();
  let list: PendingChange[] = [];
  let queue: Promise<WriteQueue> | null = null;
  let partsOf: (() => Omit<WriteQueueParts, 'kit'>) | null = null;
  const loadModule = load && loadOnDemand(load, 'offline writes');
  const loaded = (): Promise<WriteQueue> => {
    if (!enabled)
      return Promise.reject(
        new InvalidArgumentError('options.offlineWrites', 'Keeping a write while offline needs offlineWrites: true.'),
      );
    if (loadModule === undefined || partsOf === null)
      return Promise.reject(
        new ClientError(
          'BROKER_UNAVAILABLE',
          "This broker's host has no offline writes (the service-worker script without app requests).",
        ),
      );
    const parts = partsOf;
    queue ??= loadModule()
      .then((module) => module.createWriteQueue({ ...parts(), kit: writeKit }))
      .then((made) => {
        made.onChange((pending) => changed.emit((list = pending)));
        changed.emit((list = made.pending()));
        return made;
      });
    queue.catch(() => (queue = null));
    return queue;
  };
  return {
    pending: { current: () => list, subscribe: (listener) => changed.subscribe(listener) },
    wrap: (byTab) =>
      !enabled
        ? byTab
        : (tab, method) => {
            const services = byTab(tab, method);
            const call = (services as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[method]!;
            return {
              ...services,
              [method]: async (...args: unknown[]) => (await loaded()).run(method, args, () => call(...args)),
            };
          },
    sendAppRequest: async (request) => (await loaded()).sendAppRequest(request),
    dismiss: async (id) => (enabled ? (await loaded()).dismiss(id) : undefined),
    start(parts) {
      partsOf = parts;
      if (enabled) loaded().catch((error: unknown) => parts().warn(`Offline writes are off: ${String(error)}`));
    },
    close() {
      void queue?.then(
        (made) => made.close(),
        () => undefined,
      );
    },
  };
}
