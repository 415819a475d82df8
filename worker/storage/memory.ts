import type { BrokerStorage, OutboxItem, SessionRecord, StoredOAuthFlow, StorageEvent } from './types.js';

import { liveKey } from './types.js';

/**
 * Storage for when IndexedDB is missing or refuses to work (private modes, quota): the session
 * lasts as long as the broker. The broker reports it as a warning.
 */
export function createMemoryStorage(): BrokerStorage & { clearAll(): void } {
  const sessions = new Map<string, SessionRecord>();
  const flows = new Map<string, StoredOAuthFlow>();
  const outbox = new Map<number, OutboxItem>();
  const listeners: Array<(event: StorageEvent) => void> = [];
  let nextId = 1;
  const copy = <T>(value: T): T => structuredClone(value);
  return {
    kind: 'memory',
    loadSession: async (slot) => (sessions.has(slot) ? copy(sessions.get(slot)!) : null),
    saveSession: async (record) => void sessions.set(record.slot, copy(record)),
    replaceSession: async (record, expected) => {
      if (liveKey(sessions.get(record.slot)) !== expected) return false;
      sessions.set(record.slot, copy(record));
      return true;
    },
    removeSession: async (slot, expected) => {
      if (liveKey(sessions.get(slot)) !== expected) return false;
      sessions.delete(slot);
      return true;
    },
    putOAuthFlow: async (flow) => void flows.set(flow.state, copy(flow)),
    takeOAuthFlow: async (state) => {
      const flow = flows.get(state) ?? null;
      flows.delete(state);
      return flow;
    },
    pruneOAuthFlows: async (olderThan) => {
      for (const [state, flow] of flows) if (flow.createdAtMillis < olderThan) flows.delete(state);
    },
    addOutbox: async (item) => {
      const id = nextId++;
      outbox.set(id, { ...copy(item), id });
    },
    listOutbox: async (projectId) => [...outbox.values()].filter((i) => i.projectId === projectId).map(copy),
    removeOutbox: async (id) => void outbox.delete(id),
    onEvent: (listener) => void listeners.push(listener),
    close: () => undefined,
    clearAll: () => {
      sessions.clear();
      flows.clear();
      outbox.clear();
      for (const listener of listeners) listener({ kind: 'cleared' });
    },
  };
}
