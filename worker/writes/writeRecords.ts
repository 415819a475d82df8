/**
 * The kept writes of one queue as this broker last read them from storage, the calls of its tabs that wait for theirs,
 * and the list every tab is shown. Storage is the truth (another broker of the origin may have sent, refused or
 * dropped a write): every change is written there, read back, and told to the other brokers on a channel whose
 * messages are only a reason to read again.
 */
import type { PendingChange } from '../../contract/appRequests.js';
import type { StoredWrite, WriteStore } from './store.js';
import type { WriteQueueParts } from './writeQueueParts.js';

/** Refused and dropped writes stay in the list this long unless dismissed. */
export const KEEP_REPORTS_MILLIS = 24 * 60 * 60 * 1000;
/** An applied write stays stored this long for a broker whose tab waits for its answer. */
const KEEP_APPLIED_MILLIS = 60_000;

export const isWaiting = (write: StoredWrite) => write.state === 'waiting' || write.state === 'sending';

interface Waiter {
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export class WriteRecords {
  /** Every write of the queue, oldest first. */
  writes: StoredWrite[] = [];
  private shown: PendingChange[] = [];
  private readonly listeners = new Set<(pending: PendingChange[]) => void>();
  private readonly waiters = new Map<string, Waiter>();
  private readonly channel: BroadcastChannel | null;
  private closed = false;

  constructor(
    private readonly parts: Pick<WriteQueueParts, 'key' | 'clock' | 'kit' | 'warn'>,
    private readonly store: WriteStore,
    /** The signed-in user now (null: nobody): whose writes the list shows. */
    private readonly userId: () => string | null,
    /** The list or the writes changed. */
    private readonly onRead: () => void,
  ) {
    this.channel =
      typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(`authbroker:writes:${parts.key}`);
    // Any page can post here: a message is only a reason to read storage again.
    this.channel?.addEventListener('message', () => void this.reload());
  }

  get pending(): PendingChange[] {
    return this.shown;
  }

  onChange(listener: (pending: PendingChange[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Whether `user` has writes waiting: a new one waits behind them. */
  waitsFor(user: string): boolean {
    return this.writes.some((w) => isWaiting(w) && w.userId === user);
  }

  /** Keeps a new write; `answer` is its answer (when applied), or why it was not. */
  async keep(
    fields: Pick<StoredWrite, 'kind' | 'userId' | 'label' | 'action' | 'request' | 'uncertain'>,
  ): Promise<{ answer: Promise<unknown> }> {
    const now = this.parts.clock.now();
    const write = await this.store.add({
      ...fields,
      id: crypto.randomUUID(),
      queue: this.parts.key,
      createdAtMillis: now,
      updatedAtMillis: now,
      state: 'waiting',
      attempts: 0,
      failedSends: 0,
      error: null,
    });
    const answer = new Promise((resolve, reject) => this.waiters.set(write.id, { resolve, reject }));
    await this.changed();
    return { answer };
  }

  async save(write: StoredWrite): Promise<void> {
    await this.store
      .put(write)
      .catch((error: unknown) => this.parts.warn(`A kept change could not be saved (${String(error)}).`));
    await this.changed();
  }

  async remove(write: StoredWrite): Promise<void> {
    await this.store.remove(write.seq!);
    await this.changed();
  }

  /** Reads the queue again, forgets old reports, answers this broker's waiting calls, and tells the tabs. */
  async reload(): Promise<void> {
    if (this.closed) return;
    const now = this.parts.clock.now();
    const kept: StoredWrite[] = [];
    for (const write of await this.store.list(this.parts.key).catch(() => this.writes)) {
      const settled = write.state === 'applied' || write.state === 'refused' || write.state === 'dropped';
      if (settled && this.answer(write) && write.state === 'applied') {
        await this.store.remove(write.seq!).catch(() => undefined);
        continue;
      }
      const age = now - write.updatedAtMillis;
      const old = write.state === 'applied' ? age > KEEP_APPLIED_MILLIS : settled && age > KEEP_REPORTS_MILLIS;
      if (old) await this.store.remove(write.seq!).catch(() => undefined);
      else kept.push(write);
    }
    this.writes = kept;
    this.publish();
  }

  /** The list tabs see: this user's writes, and, signed out, the writes dropped by signing out. */
  publish(): void {
    const user = this.userId();
    const shown: PendingChange[] = this.writes
      .filter((w) => w.state !== 'applied' && (w.userId === user || (w.state === 'dropped' && user === null)))
      .map((w) => ({
        id: w.id,
        kind: w.kind,
        label: w.label,
        createdAtMillis: w.createdAtMillis,
        state: w.state as PendingChange['state'],
        attempts: w.attempts,
        error: w.error,
      }));
    if (JSON.stringify(shown) !== JSON.stringify(this.shown)) {
      this.shown = shown;
      for (const listener of [...this.listeners]) listener(shown);
    }
    this.onRead();
  }

  close(): void {
    this.closed = true;
    this.channel?.close();
    this.store.close();
    const closed = new this.parts.kit.ClientError(
      'BROKER_CLOSED',
      'The broker stopped: the change is kept, and sent by the next one.',
    );
    for (const waiter of this.waiters.values()) waiter.reject(closed);
    this.waiters.clear();
  }

  /** Answers the call waiting here for a settled write; whether one was. */
  private answer(write: StoredWrite): boolean {
    const waiter = this.waiters.get(write.id);
    if (waiter === undefined) return false;
    this.waiters.delete(write.id);
    // A refused `client.fetch` call still gets its answer (a 4xx is one); a refused action, its error.
    if (write.state === 'applied' || (write.kind === 'request' && write.result !== undefined))
      waiter.resolve(write.result);
    else waiter.reject(this.parts.kit.deserializeError(write.error));
    return true;
  }

  private async changed(): Promise<void> {
    await this.reload();
    if (!this.closed) this.channel?.postMessage('changed');
  }
}
