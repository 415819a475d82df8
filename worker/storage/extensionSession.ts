import type { ExtensionStorageArea } from '../../contract/webExtension.js';
import { liveKey, readSessionRecord, type BrokerStorage, type OutboxItem, type StorageEvent } from './types.js';

/**
 * `tokenStore: 'session'` in a browser extension: the session (and the sign-outs waiting to be
 * sent, which hold a refresh token too) in `storage.session`, which lives in the browser's memory:
 * it survives every stop and restart of the extension's background, and is gone when the browser
 * closes. Its default access level lets only the extension's own pages and background read it,
 * never content scripts (which run in web pages); the broker never raises it. `storage.local`,
 * which is written to disk and readable by content scripts, is never used for tokens.
 *
 * OAuth flows hold no token and must outlive a sign-in window, so they stay in `durable`
 * (IndexedDB on the extension's origin). Only the background's one broker writes here, so the
 * compare-and-set operations are made atomic by running every operation in turn.
 */
export function createExtensionSessionStorage(area: ExtensionStorageArea, durable: BrokerStorage): BrokerStorage {
  const listeners: Array<(event: StorageEvent) => void> = [];
  const emit = (event: StorageEvent) => listeners.forEach((listener) => listener(event));
  let queue: Promise<unknown> = Promise.resolve();
  /** One operation at a time: a read and the write that depends on it are never split by another. */
  const inTurn = <T>(operation: () => Promise<T>): Promise<T> => {
    const result = queue.then(operation);
    queue = result.catch(() => undefined);
    return result;
  };
  const sessionKey = (slot: string) => `authbroker:session:${slot}`;
  const outboxKey = (projectId: string) => `authbroker:outbox:${projectId}`;
  const read = async (key: string): Promise<unknown> => (await area.get(key))[key];
  const readOutbox = async (projectId: string): Promise<OutboxItem[]> => {
    const items = await read(outboxKey(projectId));
    return Array.isArray(items) ? (items as OutboxItem[]) : [];
  };
  /** Outbox items are found by id alone (`removeOutbox`), so each project's list is named in an index. */
  const OUTBOX_PROJECTS = 'authbroker:outbox-projects';
  const OUTBOX_NEXT_ID = 'authbroker:outbox-next-id';
  const outboxProjects = async (): Promise<string[]> => {
    const projects = await read(OUTBOX_PROJECTS);
    return Array.isArray(projects) ? projects.filter((p): p is string => typeof p === 'string') : [];
  };

  return {
    kind: 'session',
    loadSession: (slot) =>
      inTurn(async () => {
        const { record, problem } = readSessionRecord(await read(sessionKey(slot)), slot);
        if (problem !== null) emit({ kind: 'discarded', slot, problem });
        return record;
      }),
    saveSession: (record) => inTurn(() => area.set({ [sessionKey(record.slot)]: record })),
    replaceSession: (record, expected) =>
      inTurn(async () => {
        if (liveKey(await read(sessionKey(record.slot))) !== expected) return false;
        await area.set({ [sessionKey(record.slot)]: record });
        return true;
      }),
    removeSession: (slot, expected) =>
      inTurn(async () => {
        if (liveKey(await read(sessionKey(slot))) !== expected) return false;
        await area.remove(sessionKey(slot));
        return true;
      }),
    putOAuthFlow: (flow) => durable.putOAuthFlow(flow),
    takeOAuthFlow: (state) => durable.takeOAuthFlow(state),
    pruneOAuthFlows: (olderThan) => durable.pruneOAuthFlows(olderThan),
    addOutbox: (item) =>
      inTurn(async () => {
        const items = await readOutbox(item.projectId);
        const next = await read(OUTBOX_NEXT_ID);
        const id = typeof next === 'number' && Number.isSafeInteger(next) && next > 0 ? next : 1;
        const projects = await outboxProjects();
        await area.set({
          [OUTBOX_NEXT_ID]: id + 1,
          [outboxKey(item.projectId)]: [...items, { ...item, id }],
          ...(projects.includes(item.projectId) ? {} : { [OUTBOX_PROJECTS]: [...projects, item.projectId] }),
        });
      }),
    listOutbox: (projectId) => inTurn(() => readOutbox(projectId)),
    removeOutbox: (id) =>
      inTurn(async () => {
        for (const projectId of await outboxProjects()) {
          const items = await readOutbox(projectId);
          const kept = items.filter((item) => item.id !== id);
          if (kept.length !== items.length) await area.set({ [outboxKey(projectId)]: kept });
        }
      }),
    onEvent: (listener) => {
      listeners.push(listener);
      durable.onEvent(listener);
    },
    close: () => durable.close(),
  };
}
