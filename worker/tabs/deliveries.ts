/** What a tab's subscriptions deliver: batched per microtask, one message however many subscriptions changed. */
import type { Delivery, TabListener } from '../../contract/api.js';
import type { QuerySnapshot } from '../../contract/snapshot.js';

export interface DeliveredTab {
  listener: TabListener;
  released: boolean;
  /** Snapshots waiting for the next batch, by subscription. */
  pending: Map<string, QuerySnapshot>;
  flushScheduled: boolean;
}

export function queueDelivery(tab: DeliveredTab, subscriptionId: string, snapshot: QuerySnapshot): void {
  if (tab.released) return;
  tab.pending.set(subscriptionId, snapshot);
  if (tab.flushScheduled) return;
  tab.flushScheduled = true;
  queueMicrotask(() => {
    tab.flushScheduled = false;
    if (tab.released || tab.pending.size === 0) return;
    const batch: Delivery = [...tab.pending].map(([id, snap]) => ({ subscriptionId: id, snapshot: snap }));
    tab.pending.clear();
    try {
      tab.listener.deliver(batch);
    } catch {
      // The tab's port is gone; its lock will release it.
    }
  });
}
