/**
 * The service's time, shared fairly between the tabs of a broker (issue 39, item 3). Without it every request went to
 * `fetch` at once: a browser sends at most six at a time to one host over HTTP/1.1 and queues the rest in arrival
 * order, so one page asking for 1,200 distinct teams held the app's own refetch for 27–66 s, and the 30 s deadline
 * of an attempt, counting that queue, sent many of them twice.
 *
 * Here a request waits for its turn before it is sent (and before its deadline starts: protocol/retryLoop.ts). At most
 * MAX_REQUESTS_AT_ONCE are out at a time, as many as the browser sends, so that what waits, waits here, where the
 * order is ours. Each party (a tab, by its number in the broker; or the broker's own work) has a lane; when a request ends, the
 * next one out is taken from the lanes in turn: first a lane that had nothing waiting before (a tab that asks now and
 * then goes ahead of tabs with a backlog, however many there are), then the backlogged lanes round-robin, one request
 * each. A lane with MAX_REQUESTS_PER_TAB_AT_ONCE out waits while a lane with fewer has a request waiting; with nobody
 * waiting it may use every slot (a page's first screen is not slowed). A lane holds at most MAX_WAITING_PER_TAB
 * requests: one more is refused.
 *
 * A fetch shared by several tabs (the cache's) is a `Claim`: it waits in the lane of each tab that asked for it, and
 * goes out in the first of their turns; a tab that joins it while it waits adds its lane, so that no page can hold
 * the app's read in a backlog of its own by asking for the same data first.
 */
import { ClientError } from '../../protocol/errors/errors.js';

/** Who a request is for: a tab, by its number in the broker, or the broker's own work. */
export type Party = number | 'broker';
export const BROKER_PARTY: Party = 'broker';

/**
 * Requests out at once, per broker: the six a browser sends to one host over HTTP/1.1, so that what waits, waits here
 * in our order rather than in the browser's, and a tab alone loses nothing. (A token renewal is not one of them: it may
 * wait behind them in the browser, one round trip at most.)
 */
export const MAX_REQUESTS_AT_ONCE = 6;
/** What one tab may have out while another tab waits. */
export const MAX_REQUESTS_PER_TAB_AT_ONCE = 2;
/**
 * The most requests one tab may have waiting. An app's tab asks for a few dozen at most at once; a tab holds at most
 * 1,000 subscriptions and 256 calls waiting on its port, so more is a page asking for what it does not show.
 */
export const MAX_WAITING_PER_TAB = 500;

/** The parties sharing one fetch; more join while it waits. */
export class Claim {
  readonly #members = new Set<Party>();
  readonly #listeners = new Set<(party: Party) => void>();

  constructor(first: Party) {
    this.#members.add(first);
  }

  get parties(): ReadonlySet<Party> {
    return this.#members;
  }

  add(party: Party): void {
    if (this.#members.has(party)) return;
    this.#members.add(party);
    for (const listener of this.#listeners) listener(party);
  }

  /** `listener` hears of each party that joins, until the returned function is called. */
  onJoin(listener: (party: Party) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/** Whom a request is sent on behalf of, as requests carry it (protocol/transport.ts's `onBehalfOf`). */
export type OnBehalfOf = Claim | Party | undefined;

interface Ticket {
  lanes: Set<Lane>;
  start(lane: Lane): void;
}

interface Lane {
  party: Party;
  waiting: Ticket[];
  out: number;
  /** In `fresh` (it had nothing waiting before) or `backlogged`, while it has something waiting. */
  queued: 'fresh' | 'backlogged' | null;
}

export interface SchedulerLimits {
  atOnce?: number;
  perTabAtOnce?: number;
  waitingPerTab?: number;
}

export class RequestScheduler {
  readonly #lanes = new Map<Party, Lane>();
  readonly #fresh: Lane[] = [];
  readonly #backlogged: Lane[] = [];
  #out = 0;
  readonly #atOnce: number;
  readonly #perTabAtOnce: number;
  readonly #waitingPerTab: number;

  constructor(limits: SchedulerLimits = {}) {
    this.#atOnce = limits.atOnce ?? MAX_REQUESTS_AT_ONCE;
    this.#perTabAtOnce = limits.perTabAtOnce ?? MAX_REQUESTS_PER_TAB_AT_ONCE;
    this.#waitingPerTab = limits.waitingPerTab ?? MAX_WAITING_PER_TAB;
  }

  /** Requests out now, and waiting (diagnostics, tests). */
  get load(): { out: number; waiting: number } {
    let waiting = 0;
    for (const lane of this.#lanes.values()) waiting += lane.waiting.length;
    return { out: this.#out, waiting };
  }

  /**
   * Resolves when the request may be sent, with the function to call once it has its whole answer (or failed). Rejects
   * with BROKER_UNAVAILABLE when its tab has MAX_WAITING_PER_TAB requests waiting, and with the signal's reason when it
   * is aborted while it waits.
   */
  turn(onBehalfOf: OnBehalfOf, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    const claim = onBehalfOf instanceof Claim ? onBehalfOf : undefined;
    const parties = claim?.parties ?? new Set([onBehalfOf === undefined ? BROKER_PARTY : (onBehalfOf as Party)]);
    const own = [...parties].map((party) => this.#lane(party));
    // A free slot with nothing waiting: out at once (with nobody else waiting, a tab may use every slot).
    if (this.#out < this.#atOnce && this.#fresh.length === 0 && this.#backlogged.length === 0)
      return Promise.resolve(this.#begin(own[0]!));
    if (own.every((lane) => lane.waiting.length >= this.#waitingPerTab)) {
      for (const lane of own) if (lane.queued === null && lane.out === 0) this.#lanes.delete(lane.party);
      return Promise.reject(this.#refusal(own[0]!.party));
    }
    return new Promise((resolve, reject) => {
      let stopJoining = () => undefined as unknown;
      const ticket: Ticket = {
        lanes: new Set(),
        start: (lane) => {
          // Counted out before it leaves its lanes, so that a lane it empties is kept for its count.
          const end = this.#begin(lane);
          cleanUp();
          resolve(end);
        },
      };
      const onAbort = () => {
        cleanUp();
        reject(signal!.reason);
      };
      const cleanUp = () => {
        stopJoining();
        signal?.removeEventListener('abort', onAbort);
        for (const lane of ticket.lanes) this.#leave(lane, ticket);
        ticket.lanes.clear();
      };
      for (const lane of own) this.#enter(lane, ticket);
      stopJoining = claim?.onJoin((party) => this.#enter(this.#lane(party), ticket)) ?? stopJoining;
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #lane(party: Party): Lane {
    let lane = this.#lanes.get(party);
    if (lane === undefined) this.#lanes.set(party, (lane = { party, waiting: [], out: 0, queued: null }));
    return lane;
  }

  #refusal(party: Party): ClientError {
    const who = party === BROKER_PARTY ? "The broker's own work has" : 'This tab has';
    return new ClientError(
      'BROKER_UNAVAILABLE',
      `${who} ${this.#waitingPerTab} requests waiting for the service, the most it may: this one was not sent.`,
    );
  }

  #enter(lane: Lane, ticket: Ticket): void {
    if (ticket.lanes.has(lane)) return;
    ticket.lanes.add(lane);
    lane.waiting.push(ticket);
    if (lane.queued === null) {
      lane.queued = 'fresh';
      this.#fresh.push(lane);
    }
  }

  #leave(lane: Lane, ticket: Ticket): void {
    const at = lane.waiting.indexOf(ticket);
    if (at >= 0) lane.waiting.splice(at, 1);
    if (lane.waiting.length === 0) this.#dequeue(lane);
  }

  #dequeue(lane: Lane): void {
    const list = lane.queued === 'fresh' ? this.#fresh : lane.queued === 'backlogged' ? this.#backlogged : null;
    if (list !== null) list.splice(list.indexOf(lane), 1);
    lane.queued = null;
    if (lane.out === 0) this.#lanes.delete(lane.party);
  }

  /** A request of `lane` goes out now; the function given back ends it. */
  #begin(lane: Lane): () => void {
    this.#out++;
    lane.out++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#out--;
      lane.out--;
      if (lane.out === 0 && lane.queued === null) this.#lanes.delete(lane.party);
      this.#next();
    };
  }

  /** Fills the free slots from the lanes in turn: fresh ones first, then the backlogged, each under its share first. */
  #next(): void {
    while (this.#out < this.#atOnce) {
      const lane = this.#pick((l) => l.out < this.#perTabAtOnce) ?? this.#pick(() => true);
      if (lane === undefined) return;
      const ticket = lane.waiting[0]!;
      // Served in this turn: the lane goes to the end of the backlogged ones, if it has more.
      const list = lane.queued === 'fresh' ? this.#fresh : this.#backlogged;
      list.splice(list.indexOf(lane), 1);
      lane.queued = null;
      ticket.start(lane);
      if (lane.waiting.length > 0) {
        lane.queued = 'backlogged';
        this.#backlogged.push(lane);
      } else if (lane.out === 0) this.#lanes.delete(lane.party);
    }
  }

  #pick(eligible: (lane: Lane) => boolean): Lane | undefined {
    return this.#fresh.find(eligible) ?? this.#backlogged.find(eligible);
  }
}
