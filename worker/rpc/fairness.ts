/**
 * Time on the broker's thread, shared fairly between the ports it serves (issue 32, item 1). Every
 * tab of the origin shares this one thread: served in arrival order, one page posting 100,000 cheap
 * calls on its own port held another tab's cached read for 2.6 s (5.6 s measured here under load).
 *
 * Each served port is a lane. A message is worked on at once when its lane has nothing waiting and
 * has used less than LANE_BUDGET_MILLIS of the thread in the current LANE_WINDOW_MILLIS: every tab's
 * ordinary calls, with no added wait. Beyond that it waits in its lane, and the waiting lanes are
 * served round-robin, one message each in turn, in slices between which the thread goes back to
 * the browser: the messages that arrived meanwhile are taken in (a lane within its budget served at
 * once), so a lane's backlog delays another lane's message by one message per waiting lane and a
 * slice at most. Within a lane the order never changes.
 *
 * What this cannot spare: the browser dispatches every message and deserializes it (`event.data`)
 * on this thread, in the order they arrive, before any of our code can look. A page posting faster
 * than the browser dispatches here builds a queue in the browser that every other port's message
 * waits behind (measured in Chromium: the whole wait of another tab's read was before it reached
 * the broker's listener). So the slices shorten while messages keep arriving, and a lane with more
 * than MAX_WAITING_PER_LANE messages waiting has its port closed, which drops what the browser
 * still holds for it. A lane keeps the plain data, not the event (a backlog of a hundred thousand
 * events held the browser's own garbage collector for tens of ms at a time).
 */

/** How long one lane may use the thread on arrival per window before its messages wait their turn. */
export const LANE_BUDGET_MILLIS = 10;
export const LANE_WINDOW_MILLIS = 100;
/** How long the waiting lanes are served before the thread goes back to the browser. */
export const SLICE_MILLIS = 4;
/**
 * When the thread came back to the waiting lanes this much later than it asked to, the browser had
 * messages of its own to dispatch (a flood still arriving): the next slice is SHORT_SLICE_MILLIS, so
 * that taking messages in keeps up with their arrival and a message of another port is not left
 * behind a growing queue of the browser's. Once arrivals calm down, the slices are long again.
 */
export const BEHIND_MILLIS = 1;
export const SHORT_SLICE_MILLIS = 0.5;
/**
 * The most messages one lane may have waiting. A tab's calls wait only past its budget, and a tab
 * holds at most 1,000 subscriptions (MAX_SUBSCRIPTIONS_PER_TAB): a start-up subscribing to all of
 * them at once stays well below. More is a page posting faster than it is served, and its
 * connection is closed (`onOverflow`): the browser then drops what it still holds for that port,
 * which it would otherwise dispatch on this thread ahead of every other port's messages.
 */
export const MAX_WAITING_PER_LANE = 5_000;

export interface Lane<T> {
  /** Has `item` handled now, or in this lane's turn (after the lane's earlier items). */
  push(item: T): void;
  /** Drops what still waits; the lane is not used again. */
  close(): void;
}

export interface FairScheduler {
  /**
   * A lane whose items `handle` takes, one at a time. `onOverflow`: more than MAX_WAITING_PER_LANE
   * items waited (the lane is closed first).
   */
  lane<T>(handle: (item: T) => void, onOverflow?: () => void): Lane<T>;
}

/**
 * First in, first out, in constant time: `Array#shift` copies the whole array once it is large (a
 * backlog of 80,000 took 160 µs a message).
 */
class Queue<T> {
  private items: T[] = [];
  private head = 0;
  get length(): number {
    return this.items.length - this.head;
  }
  push(item: T): void {
    this.items.push(item);
  }
  shift(): T {
    const item = this.items[this.head]!;
    this.items[this.head++] = undefined as T;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

interface LaneState<T = unknown> extends Lane<T> {
  handle(item: T): void;
  waiting: Queue<T>;
  spentMillis: number;
  windowStartMillis: number;
  closed: boolean;
}

/** Runs `task` in a task of its own, after what the browser has queued already (messages included). */
function macrotaskScheduler(): (task: () => void) => void {
  if (typeof MessageChannel === 'undefined') return (task) => void setTimeout(task, 0);
  const channel = new MessageChannel();
  let next: (() => void) | null = null;
  channel.port1.onmessage = () => next?.();
  // Node: this port must not keep a process alive.
  (channel.port1 as { unref?: () => void }).unref?.();
  return (task) => {
    next = task;
    channel.port2.postMessage(null);
  };
}

export function createFairScheduler(now: () => number = () => performance.now()): FairScheduler {
  /** Lanes with work waiting, in turn order. */
  const turns: LaneState[] = [];
  let scheduled = false;
  const later = macrotaskScheduler();

  const charge = (lane: LaneState, since: number, at = now()) => {
    if (at - lane.windowStartMillis >= LANE_WINDOW_MILLIS) {
      lane.windowStartMillis = at;
      lane.spentMillis = 0;
    }
    lane.spentMillis += at - since;
  };

  const handleIn = (lane: LaneState, item: unknown) => {
    try {
      lane.handle(item);
    } catch {
      // The handler answers its own failures; one that throws anyway must not stop the others.
    }
  };

  let askedAt = 0;
  const drainSoon = () => {
    if (scheduled) return;
    scheduled = true;
    askedAt = now();
    later(drain);
  };

  /**
   * One slice: the waiting lanes one item each in turn. The answers of the slice's calls go out in
   * the microtasks right after it, before the thread goes back to the browser.
   */
  function drain(): void {
    scheduled = false;
    let at = now();
    const until = at + (at - askedAt > BEHIND_MILLIS ? SHORT_SLICE_MILLIS : SLICE_MILLIS);
    while (turns.length > 0 && at < until) {
      const lane = turns.shift()!;
      if (lane.waiting.length === 0 || lane.closed) continue;
      handleIn(lane, lane.waiting.shift());
      const since = at;
      at = now();
      charge(lane, since, at);
      if (lane.waiting.length > 0 && !lane.closed) turns.push(lane);
    }
    if (turns.length > 0) drainSoon();
  }

  return {
    lane<T>(handle: (item: T) => void, onOverflow?: () => void) {
      const lane: LaneState<T> = {
        handle,
        waiting: new Queue<T>(),
        spentMillis: 0,
        windowStartMillis: now(),
        closed: false,
        push(item) {
          if (lane.closed) return;
          if (lane.waiting.length === 0) {
            if (now() - lane.windowStartMillis >= LANE_WINDOW_MILLIS) {
              lane.windowStartMillis = now();
              lane.spentMillis = 0;
            }
            if (lane.spentMillis < LANE_BUDGET_MILLIS) {
              // Now, charged with its answer too: a settled answer goes out in a microtask queued before this one.
              const since = now();
              handleIn(lane as LaneState, item);
              return queueMicrotask(() => charge(lane as LaneState, since));
            }
            turns.push(lane as LaneState);
          }
          if (lane.waiting.length >= MAX_WAITING_PER_LANE) {
            lane.close();
            return onOverflow?.();
          }
          lane.waiting.push(item);
          drainSoon();
        },
        close() {
          lane.closed = true;
          lane.waiting.clear();
        },
      };
      return lane;
    },
  };
}

/** The one scheduler of this thread: every port any broker of this worker serves shares it. */
let shared: FairScheduler | null = null;
export function threadScheduler(): FairScheduler {
  return (shared ??= createFairScheduler());
}
