/**
 * The lanes of the broker's thread that have messages waiting, in turn order: first those that had nothing waiting
 * before (a tab that asks now and then), then those with a backlog, round-robin. When each may go is the fair
 * scheduler's decision (fairness.ts); this keeps the lists and the count.
 */

/** A share of the thread: what it used in the current window. */
export interface Budget {
  spentMillis: number;
  windowStartMillis: number;
}

/** A served port's messages, as the scheduler keeps them. */
export interface LaneState<T = unknown> {
  handle(item: T): void;
  /**
   * At most MAX_WAITING_PER_LANE: small enough for `shift` to take constant time (V8 trims the array's front in place).
   */
  waiting: T[];
  /** The budget it shares with the other ports of its entry port. */
  group: Budget;
  /** In which turn list it waits, while it has something waiting. */
  queued: 'fresh' | 'backlogged' | null;
  /** The order lanes were made in: among equal backlogs, the newest is closed first. */
  readonly serial: number;
  onOverflow: (() => void) | undefined;
  closed: boolean;
}

export class Turns {
  readonly #fresh: LaneState[] = [];
  readonly #backlogged: LaneState[] = [];
  /** Messages waiting, all lanes together. */
  count = 0;

  get any(): boolean {
    return this.#fresh.length > 0 || this.#backlogged.length > 0;
  }

  /** Every lane with something waiting. */
  lanes(): LaneState[] {
    return [...this.#fresh, ...this.#backlogged];
  }

  /** `item` waits in `lane`, after its earlier ones; a lane that had nothing waiting is fresh. */
  add(lane: LaneState, item: unknown): void {
    lane.waiting.push(item);
    this.count++;
    if (lane.queued === null) {
      lane.queued = 'fresh';
      this.#fresh.push(lane);
    }
  }

  /** The lane whose turn is next among those that `mayGo`: fresh ones first. */
  next(mayGo: (lane: LaneState) => boolean): LaneState | undefined {
    return this.#fresh.find(mayGo) ?? this.#backlogged.find(mayGo);
  }

  /** The lane's first item, in its turn: the lane then waits at the back of the backlogged ones, if it has more. */
  take(lane: LaneState): unknown {
    this.#unqueue(lane);
    this.count--;
    return lane.waiting.shift();
  }

  /** After its turn's item was handled. */
  requeue(lane: LaneState): void {
    if (lane.closed || lane.waiting.length === 0 || lane.queued !== null) return;
    lane.queued = 'backlogged';
    this.#backlogged.push(lane);
  }

  /** Drops what the lane has waiting; it is not used again. */
  close(lane: LaneState): void {
    if (lane.closed) return;
    lane.closed = true;
    this.count -= lane.waiting.length;
    lane.waiting = [];
    this.#unqueue(lane);
  }

  /** The lanes with the longest backlogs first, the newest first among equals. */
  longestFirst(): LaneState[] {
    return this.lanes().sort((a, b) => b.waiting.length - a.waiting.length || b.serial - a.serial);
  }

  #unqueue(lane: LaneState): void {
    if (lane.queued === null) return;
    const list = lane.queued === 'fresh' ? this.#fresh : this.#backlogged;
    list.splice(list.indexOf(lane), 1);
    lane.queued = null;
  }
}
