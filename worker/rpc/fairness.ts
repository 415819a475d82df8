/**
 * Time on the broker's thread, shared fairly between the ports it serves (issue 32, item 1; issue 39, item 2). Every
 * tab of the origin shares this one thread: served in arrival order, one page posting 100,000 cheap calls on its own
 * port held another tab's cached read for 2.6 s; spread over 400 ports of 250 calls each (each port within its own
 * budget, none over its cap), for 1.9–2.6 s.
 *
 * Each served port is a lane; the lanes of one entry port (a `new SharedWorker` object of a page, or a port a service
 * worker was sent) are a group. A message is worked on at once when its lane has nothing waiting, its group has used
 * less than GROUP_BUDGET_MILLIS of the thread in the current WINDOW_MILLIS, and the thread itself is not busy (less
 * than THREAD_BUSY_MILLIS used in the window, by every lane together): every tab's ordinary calls, with no added wait.
 * Otherwise it waits in its lane, and the waiting lanes are served one message each in turn, in slices between which
 * the thread goes back to the browser (the messages that arrived meanwhile are taken in). A lane that had nothing
 * waiting is served before the lanes with a backlog, so that a tab that asks now and then waits for at most one slice,
 * however many lanes a page keeps busy; the backlogged lanes are served round-robin. While the thread is busy, a group
 * past its budget is not served until its next window: its backlog grows instead (Firefox runs our slices between a
 * flooding port's messages, which would otherwise never wait here, and never be closed). Within a lane the order
 * never changes.
 *
 * What this cannot spare: the browser dispatches every message and deserializes it (`event.data`) on this thread, in
 * the order they arrive, before any of our code can look. A page posting faster than the browser dispatches here
 * builds a queue in the browser that every other port's message waits behind (a Chrome trace: one task per message in
 * the worker's one task queue, 1,800 to 16,000 deep during a 100,000-call flood). Only closing a port drops what the
 * browser still holds for it. So: a lane with more than MAX_WAITING_PER_LANE messages waiting has its port closed (more
 * than PRESSED_WAITING_PER_LANE, while the thread is pressed and its group past its budget); and when the lanes
 * together hold more than MAX_WAITING_ON_THREAD, the ports with the longest backlogs (the newest first among equals)
 * are closed until they hold three quarters of it, however many ports a page spreads its calls over.
 * A lane keeps the plain data, not the event (a backlog of a hundred thousand events held the browser's own garbage
 * collector for tens of ms at a time).
 */

import { Turns, type Budget, type LaneState } from './turns.js';

/** How long the lanes of one entry port may use the thread per window before their messages wait their turn. */
export const GROUP_BUDGET_MILLIS = 10;
/** The same for one lane, as it was named before lanes had groups (a lane alone in its group). */
export const LANE_BUDGET_MILLIS = GROUP_BUDGET_MILLIS;
export const WINDOW_MILLIS = 100;
/**
 * Past this much use of the thread in a window, by all lanes together, no message is worked on at once: every message
 * waits its lane's turn, and a lane that had nothing waiting goes first. Without it, each of 400 ports spent its own
 * budget at once, and together they held the thread for seconds.
 */
export const THREAD_BUSY_MILLIS = 25;
/**
 * What each message is charged besides the time our code spends on it: the browser's own work to dispatch and
 * deserialize it, which no code of ours can time. A page posting messages that cost us nothing (no id: no answer) still
 * spends its budget.
 */
export const MESSAGE_COST_MILLIS = 0.02;
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
/**
 * The most messages a lane past its group's budget may have waiting while the thread is pressed (busy, with more than
 * a tab's worth waiting in all): a page spreading a flood over many ports builds no long backlog on any one of them,
 * but each of its ports is closed early, with what the browser still holds for it, rather than dispatched whole. A tab
 * that asks now and then stays within its budget, and its cap is MAX_WAITING_PER_LANE.
 */
export const PRESSED_WAITING_PER_LANE = 32;
/**
 * The most messages all lanes together may have waiting: sixteen ports at their cap, or 32 tabs each with every call
 * it may have unanswered. More is a page spreading a flood over many ports, none over its own cap.
 */
export const MAX_WAITING_ON_THREAD = 4096;

export interface Lane<T> {
  /** Has `item` handled now, or in this lane's turn (after the lane's earlier items). */
  push(item: T): void;
  /** Drops what still waits; the lane is not used again. */
  close(): void;
}

/** The lanes of one entry port: they share one budget. Opaque outside this file. */
export interface LaneGroup {
  readonly kind: 'lane group';
}

export interface FairScheduler {
  /** A new group: the lanes of one entry port. */
  group(): LaneGroup;
  /**
   * A lane whose items `handle` takes, one at a time. `onOverflow`: its port is closed for the sake of the others (more
   * than MAX_WAITING_PER_LANE items waited, or it had the longest backlog past MAX_WAITING_ON_THREAD); the lane is
   * closed first. `group`: the lanes it shares a budget with (default: a group of its own).
   */
  lane<T>(handle: (item: T) => void, onOverflow?: () => void, group?: LaneGroup): Lane<T>;
}

interface GroupState extends LaneGroup, Budget {}

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
  const turns = new Turns();
  const thread: Budget = { spentMillis: 0, windowStartMillis: now() };
  let serials = 0;
  let askedAt: number | null = null;
  let waking: ReturnType<typeof setTimeout> | null = null;
  const later = macrotaskScheduler();

  /** A budget's use of the thread in the current window (a new window starts at zero). */
  const spent = (budget: Budget, at: number) => {
    if (at - budget.windowStartMillis >= WINDOW_MILLIS) {
      budget.windowStartMillis = at;
      budget.spentMillis = 0;
    }
    return budget.spentMillis;
  };
  const charge = (lane: LaneState, since: number, at: number) => {
    const cost = at - since + MESSAGE_COST_MILLIS;
    lane.group.spentMillis = spent(lane.group, at) + cost;
    thread.spentMillis = spent(thread, at) + cost;
  };
  /** How many messages `lane` may have waiting now (see PRESSED_WAITING_PER_LANE). */
  const capOf = (lane: LaneState) => {
    if (lane.waiting.length < PRESSED_WAITING_PER_LANE || turns.count < MAX_WAITING_PER_LANE)
      return MAX_WAITING_PER_LANE;
    const at = now();
    return spent(thread, at) >= THREAD_BUSY_MILLIS && spent(lane.group, at) >= GROUP_BUDGET_MILLIS
      ? PRESSED_WAITING_PER_LANE
      : MAX_WAITING_PER_LANE;
  };
  /** Whether a lane's turn may come now: its group within its budget, or the thread not busy. */
  const mayGo = (lane: LaneState, at: number) =>
    spent(lane.group, at) < GROUP_BUDGET_MILLIS || spent(thread, at) < THREAD_BUSY_MILLIS;
  const handleIn = (lane: LaneState, item: unknown) => {
    try {
      lane.handle(item);
    } catch {
      // The handler answers its own failures; one that throws anyway must not stop the others.
    }
  };
  const drainSoon = () => {
    if (askedAt !== null) return;
    if (waking !== null) clearTimeout(waking);
    waking = null;
    askedAt = now();
    later(drain);
  };
  /** Every waiting lane is past its budget: served again when the first window ends. */
  const drainAfterWindow = (at: number) => {
    let first = thread.windowStartMillis + WINDOW_MILLIS;
    for (const lane of turns.lanes()) first = Math.min(first, lane.group.windowStartMillis + WINDOW_MILLIS);
    if (waking !== null) clearTimeout(waking);
    waking = setTimeout(
      () => {
        waking = null;
        drainSoon();
      },
      Math.max(1, first - at),
    );
    (waking as { unref?: () => void }).unref?.();
  };
  const overflow = (lane: LaneState) => {
    turns.close(lane);
    lane.onOverflow?.();
  };

  /**
   * One slice: the waiting lanes one item each in turn, those that had nothing waiting first. The answers of the
   * slice's calls go out in the microtasks right after it, before the thread goes back to the browser.
   */
  function drain(): void {
    let at = now();
    const until = at + (at - askedAt! > BEHIND_MILLIS ? SHORT_SLICE_MILLIS : SLICE_MILLIS);
    askedAt = null;
    while (at < until) {
      const lane = turns.next((l) => mayGo(l, at));
      if (lane === undefined) return turns.any ? drainAfterWindow(at) : undefined;
      const since = at;
      handleIn(lane, turns.take(lane));
      at = now();
      charge(lane, since, at);
      turns.requeue(lane);
    }
    if (turns.any) drainSoon();
  }

  function push(lane: LaneState, item: unknown): void {
    if (lane.closed) return;
    if (lane.waiting.length === 0) {
      const at = now();
      if (spent(lane.group, at) < GROUP_BUDGET_MILLIS && spent(thread, at) < THREAD_BUSY_MILLIS) {
        // Now, charged with its answer too: a settled answer goes out in a microtask queued before this one.
        handleIn(lane, item);
        return queueMicrotask(() => charge(lane, at, now()));
      }
    } else if (lane.waiting.length >= capOf(lane)) return overflow(lane);
    turns.add(lane, item);
    // Past MAX_WAITING_ON_THREAD: the longest backlogs (the newest lane first among equals) go.
    if (turns.count > MAX_WAITING_ON_THREAD)
      for (const longest of turns.longestFirst()) {
        if (turns.count <= (MAX_WAITING_ON_THREAD * 3) / 4) break;
        overflow(longest);
      }
    // While every waiting lane is past its budget, a lane that is too waits for the window's end as they do.
    if (waking === null || mayGo(lane, now())) drainSoon();
  }

  const newGroup = (): GroupState => ({ kind: 'lane group', spentMillis: 0, windowStartMillis: now() });

  return {
    group: newGroup,
    lane<T>(handle: (item: T) => void, onOverflow?: () => void, group?: LaneGroup) {
      const lane: LaneState<T> & Lane<T> = {
        handle,
        waiting: [],
        group: (group as GroupState | undefined) ?? newGroup(),
        queued: null,
        serial: ++serials,
        onOverflow,
        closed: false,
        push: (item) => push(lane as LaneState, item),
        close: () => turns.close(lane as LaneState),
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
