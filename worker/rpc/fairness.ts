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
 * waits behind (a Chrome trace: one task per message in the worker's one task queue, 1,800 to
 * 16,000 deep during a 100,000-call flood, another tab's message behind all of them). So the
 * slices shorten while messages keep arriving, and a lane with more than MAX_WAITING_PER_LANE
 * messages waiting has its port closed, which drops what the browser still holds for it. A lane keeps the plain data,
 * not the event (a backlog of a hundred thousand
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
 * The most messages one lane may have waiting. A tab leaves at most MAX_CALLS_IN_FLIGHT calls
 * unanswered (contract/wire.ts), so it never has more than that many waiting here. More is a page
 * posting faster than it is served, and its connection is closed (`onOverflow`): the browser then
 * drops what it still holds for that port, which it would otherwise dispatch on this thread ahead
 * of every other port's messages. The sooner, the better: with 5,000 allowed, another tab's read
 * waited up to 126 ms behind a 100,000-call flood; with 256, at most 28–34 ms (bench 11). Twice
 * MAX_CALLS_IN_FLIGHT, written as a number (test/client/callWindow.test.ts checks it): importing
 * it cost the service worker's bundle 24 bytes, of a budget it meets by a few dozen.
 */
export const MAX_WAITING_PER_LANE = 256;

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

interface LaneState<T = unknown> extends Lane<T> {
  handle(item: T): void;
  /**
   * At most MAX_WAITING_PER_LANE: small enough for `shift` to take constant time (V8 trims the array's front in place).
   */
  waiting: T[];
  spentMillis: number;
  windowStartMillis: number;
  closed: boolean;
}

/** Runs `task` in a task of its own, after what the browser has queued already (messages included). */
function macrotaskScheduler(): (task: () => void) => void {
  if (typeof MessageChannel === 'undefined') return (task) => void setTimeout(task, 0);
  const channel = new MessageChannel();
  let next = () => undefined as void;
  channel.port1.onmessage = () => next();
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
  let askedAt: number | null = null;
  const later = macrotaskScheduler();

  /** The lane's use of the thread in the current window (a new window starts at zero). */
  const spent = (lane: LaneState, at = now()) => {
    if (at - lane.windowStartMillis >= LANE_WINDOW_MILLIS) {
      lane.windowStartMillis = at;
      lane.spentMillis = 0;
    }
    return lane.spentMillis;
  };
  const handleIn = (lane: LaneState, item: unknown, since: number) => {
    try {
      lane.handle(item);
    } catch {
      // The handler answers its own failures; one that throws anyway must not stop the others.
    }
    return since;
  };
  const drainSoon = () => {
    if (askedAt !== null) return;
    askedAt = now();
    later(drain);
  };

  /**
   * One slice: the waiting lanes one item each in turn. The answers of the slice's calls go out in
   * the microtasks right after it, before the thread goes back to the browser.
   */
  function drain(): void {
    let at = now();
    const until = at + (at - askedAt! > BEHIND_MILLIS ? SHORT_SLICE_MILLIS : SLICE_MILLIS);
    askedAt = null;
    while (turns.length > 0 && at < until) {
      const lane = turns.shift()!;
      if (lane.closed) continue;
      const since = handleIn(lane, lane.waiting.shift(), at);
      at = now();
      lane.spentMillis = spent(lane, at) + at - since;
      if (lane.waiting.length > 0) turns.push(lane);
    }
    if (turns.length > 0) drainSoon();
  }

  return {
    lane<T>(handle: (item: T) => void, onOverflow?: () => void) {
      const lane: LaneState<T> = {
        handle,
        waiting: [],
        spentMillis: 0,
        windowStartMillis: now(),
        closed: false,
        push(item) {
          if (lane.closed) return;
          const state = lane as LaneState;
          if (lane.waiting.length === 0) {
            if (spent(state) < LANE_BUDGET_MILLIS) {
              // Now, charged with its answer too: a settled answer goes out in a microtask queued before this one.
              const since = handleIn(state, item, now());
              return queueMicrotask(() => (lane.spentMillis = spent(state) + now() - since));
            }
            turns.push(state);
          } else if (lane.waiting.length >= MAX_WAITING_PER_LANE) {
            lane.close();
            return onOverflow?.();
          }
          lane.waiting.push(item);
          drainSoon();
        },
        close() {
          lane.closed = true;
          lane.waiting = [];
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
