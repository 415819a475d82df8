/**
 * Waiting writes shown in the cache as if done (the optimistic values): applied over what the cache holds whenever the
 * list or the cache changes, and only where they change something, so that showing one never triggers another.
 */
import { queueableAction } from './actions.js';
import type { StoredWrite } from './store.js';
import { isWaiting } from './writeRecords.js';
import type { WriteCache } from './writeQueueParts.js';

export function overlayShower(queries: WriteCache): (writes: StoredWrite[], user: string | null) => void {
  let showing = false;
  return (writes, user) => {
    if (showing || user === null) return;
    showing = true;
    try {
      const owner = queries.ownerOf('user');
      for (const write of writes) {
        if (!isWaiting(write) || write.userId !== user || write.action === undefined) continue;
        for (const overlay of queueableAction(write.action.method)?.overlays(write.action.args) ?? []) {
          const entry = queries.cache.get(owner, overlay.spec);
          const data = entry?.snapshot().data;
          if (data === undefined || data === null) continue;
          const next = overlay.change(data);
          if (JSON.stringify(next) !== JSON.stringify(data)) entry!.setData(next);
        }
      }
    } finally {
      showing = false;
    }
  };
}
