/**
 * Sending what waits, in order, by one broker of the origin at a time (a Web Lock): once the service answers and the
 * user's session is confirmed (a token renewal, which the service refuses for a session that ended), each write goes
 * once; one that must wait (the network, the service failing) stops the round, and the next round starts where it
 * stopped. A refusal is reported and rolled back in the cache; the service failing counts towards giving up after
 * MAX_FAILED_SENDS; the network failing never does: a write waits as long as the outage lasts.
 */
import { queueableAction } from './actions.js';
import { sendWrite, type Sent } from './send.js';
import type { StoredWrite } from './store.js';
import { isWaiting, type WriteRecords } from './writeRecords.js';
import type { ServiceMethods } from '../api/context.js';
import type { WriteQueueParts } from './writeQueueParts.js';

/** Sends the service answered with a failure (5xx, 429) before a write is given up, reported as refused. */
export const MAX_FAILED_SENDS = 5;

export class WriteSender {
  constructor(
    private readonly parts: WriteQueueParts,
    /** The broker's service methods, each write sent once per send. */
    private readonly services: ServiceMethods,
    private readonly records: WriteRecords,
    private readonly userId: () => string | null,
  ) {}

  /** One round; false when a write must wait (a round is then due later). */
  async round(): Promise<boolean> {
    const { locks, key } = this.parts;
    if (locks === null) return this.sendWaiting();
    // Another broker of the origin holding the lock sends these too (it reads storage): a round later makes sure.
    return locks.request(`authbroker:writes:${key}`, { ifAvailable: true }, (lock) =>
      lock === null ? false : this.sendWaiting(),
    );
  }

  /** Drops the waiting writes that are not `user`'s (all of them, signed out): they belonged to a session that ended. */
  async drop(user: string | null): Promise<void> {
    const others = this.records.writes.filter((w) => isWaiting(w) && w.userId !== user);
    if (others.length === 0) return;
    const why = new this.parts.kit.ClientError(
      'WRITE_DROPPED',
      user === null
        ? 'You signed out before this change could be sent: it was not saved.'
        : 'Another user signed in before this change could be sent: it was not saved.',
    );
    for (const write of others) await this.settle(write, 'dropped', why);
  }

  private async sendWaiting(): Promise<boolean> {
    const { session, connectivity } = this.parts;
    let confirmed = false;
    // Read once; every change after is read back as it is saved (writeRecords.ts).
    await this.records.reload();
    for (;;) {
      if (connectivity.isOffline) return false;
      const next = this.records.writes.find(isWaiting);
      if (next === undefined) return true;
      await session.start();
      if (next.userId !== this.userId()) {
        await this.drop(this.userId());
        continue;
      }
      if (!confirmed) {
        if (!(await this.confirmSession())) return false;
        confirmed = true;
        continue;
      }
      if ((await this.send(next)) === 'again') return false;
    }
  }

  /** Whether the user's session is still theirs at the service: a token renewal. */
  private async confirmSession(): Promise<boolean> {
    const { session } = this.parts;
    try {
      const held = await session.currentAccessToken();
      if (held !== null) session.invalidateAccessToken(held);
      return (await session.getAccessToken()) !== null;
    } catch {
      return false;
    }
  }

  private async send(stored: StoredWrite): Promise<Sent['outcome']> {
    const { clock, kit } = this.parts;
    // Found "sending": the broker that sent it stopped before it knew the answer.
    const write = stored.state === 'sending' ? { ...stored, uncertain: true } : stored;
    const sending = { ...write, state: 'sending' as const, attempts: write.attempts + 1, updatedAtMillis: clock.now() };
    await this.records.save(sending);
    const sent = await sendWrite(write, this.parts, this.services);
    if (sent.outcome === 'applied') await this.settle(sending, 'applied', null, sent.result);
    else if (sent.outcome === 'refused') await this.refuse(sending, sent.error, sent.result);
    else if (sent.outcome === 'dropped') await this.settle(sending, 'dropped', sent.error);
    else {
      const failedSends = write.failedSends + (sent.answered ? 1 : 0);
      if (failedSends >= MAX_FAILED_SENDS) {
        await this.refuse(sending, sent.error);
        return 'refused';
      }
      await this.records.save({
        ...sending,
        state: 'waiting',
        failedSends,
        uncertain: write.uncertain || sent.uncertain,
        error: sent.answered ? kit.serializeError(sent.error) : write.error,
      });
    }
    return sent.outcome;
  }

  private async refuse(write: StoredWrite, error: unknown, result?: unknown): Promise<void> {
    await this.settle(write, 'refused', error, result);
    // What the cache showed while it waited is read again from the service.
    if (write.action !== undefined)
      for (const filter of queueableAction(write.action.method)?.affected(write.action.args) ?? [])
        this.parts.queries.invalidate(filter);
  }

  /** `write` settled: what it carried to send is forgotten; its answer (or why not) is kept for whoever waits. */
  private settle(write: StoredWrite, state: 'applied' | 'refused' | 'dropped', error: unknown, result?: unknown) {
    return this.records.save({
      ...write,
      state,
      action: undefined,
      request: undefined,
      error: error === null ? null : this.parts.kit.serializeError(error),
      updatedAtMillis: this.parts.clock.now(),
      ...(result === undefined ? {} : { result }),
    });
  }
}
