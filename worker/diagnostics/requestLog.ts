import {
  REQUEST_LOG_SIZE,
  type RequestAttempt,
  type RequestCause,
  type RequestRecord,
} from '../../contract/diagnostics.js';
import type { Emitter } from '../../contract/events.js';
import type { Clock } from '../../protocol/clock.js';
import type { TransportObserver } from '../../protocol/transport.js';
import type { FetchCause } from '../cache/cacheEntry.js';
import type { RecorderKit } from './kit.js';
import { Ring } from './ring.js';

/**
 * Who started a piece of work (a fetch, an action, a token refresh), and how many callers it ended
 * up serving. Requests made for the work point at it, so a caller joining later shows on them.
 */
export class Trace implements FetchCause {
  callers = 1;

  readonly #changed: () => void;
  constructor(
    readonly cause: RequestCause,
    changed: () => void,
  ) {
    this.#changed = changed;
  }

  fork(): Trace {
    return new Trace(this.cause, this.#changed);
  }

  join(): void {
    this.callers++;
    this.#changed();
  }
}

/** A request as the log keeps it until it falls out; copied into a plain RequestRecord when read. */
export interface OpenRequest {
  readonly id: number;
  readonly method: string;
  readonly path: string;
  readonly startedAtMillis: number;
  endedAtMillis: number | null;
  outcome: RequestRecord['outcome'];
  status: number | null;
  code: string | null;
  readonly attempts: RequestAttempt[];
  readonly trace: Trace;
}

/**
 * The broker's requests, newest last, in a ring of REQUEST_LOG_SIZE. Off until a devtools panel
 * first watches the diagnostics (then on for the broker's life): until then no trace is made, no
 * request is wrapped or kept, and the only cost is a flag read per request.
 */
export class RequestLog {
  readonly #ring: Ring<OpenRequest>;
  #nextId = 1;
  #on = false;
  #sinceMillis = 0;
  /** A request began, changed or ended, or a caller joined one. */
  readonly changed: Emitter;
  readonly #emitChanged = () => this.changed.emit();

  readonly #kit: Pick<RecorderKit, 'Emitter' | 'serializeError'>;
  readonly #clock: Clock;
  constructor(clock: Clock, kit: Pick<RecorderKit, 'Emitter' | 'serializeError'>, capacity = REQUEST_LOG_SIZE) {
    this.#kit = kit;
    this.#clock = clock;
    this.#ring = new Ring(capacity);
    this.changed = new kit.Emitter();
  }

  get recording(): boolean {
    return this.#on;
  }

  get recordingSinceMillis(): number {
    return this.#sinceMillis;
  }

  get dropped(): number {
    return this.#ring.dropped;
  }

  start(): void {
    if (this.#on) return;
    this.#on = true;
    this.#sinceMillis = this.#clock.now();
  }

  /** A trace for work that `cause` starts; undefined while not recording (nothing is attributed then). */
  trace(cause: RequestCause): Trace | undefined {
    return this.#on ? new Trace(cause, this.#emitChanged) : undefined;
  }

  begin(method: string, path: string, trace: Trace, startedAtMillis = this.#clock.now()): OpenRequest {
    const record: OpenRequest = {
      id: this.#nextId++,
      method,
      path,
      startedAtMillis,
      endedAtMillis: null,
      outcome: 'pending',
      status: null,
      code: null,
      attempts: [],
      trace,
    };
    this.#ring.push(record);
    this.changed.emit();
    return record;
  }

  /**
   * The attempt events of one request. `settlesOnAnswer`: no one will call `finish` (the token
   * endpoint's exchanges), so each answer settles the record for now (an error status as an error)
   * and a retry opens it again.
   */
  observe(record: OpenRequest, settlesOnAnswer = false): TransportObserver {
    const attempted = (attempt: RequestAttempt, code: string | null) => {
      record.attempts.push(attempt);
      record.status = attempt.status;
      record.code = code;
      if (settlesOnAnswer) {
        record.outcome = attempt.status !== null && attempt.status < 400 ? 'success' : 'error';
        record.endedAtMillis = this.#clock.now();
      }
      this.changed.emit();
    };
    return {
      onResponse: ({ status, durationMillis, code }) =>
        attempted({ status, durationMillis, retry: null }, status < 400 ? null : (code ?? 'HTTP_STATUS_ERROR')),
      onNetworkError: () => attempted({ status: null, durationMillis: null, retry: null }, 'NETWORK_UNREACHABLE'),
      onRetry: ({ delayMillis, reason }) => {
        const last = record.attempts.at(-1);
        if (last) last.retry = { reason, delayMillis };
        record.outcome = 'pending';
        record.code = null;
        record.endedAtMillis = null;
        this.changed.emit();
      },
    };
  }

  /**
   * The request is over: `failure` is what it threw, if it failed. Without one, the last answer
   * decides (a refresh the service refused ends the session rather than throwing).
   */
  finish(record: OpenRequest, failure?: { error: unknown }): void {
    if (failure !== undefined) {
      record.outcome = 'error';
      // The code of what it threw, as the tab would see it (ours and the service's errors carry one).
      record.code = this.#kit.serializeError(failure.error).code;
    } else {
      record.outcome = record.code === null ? 'success' : 'error';
    }
    record.endedAtMillis ??= this.#clock.now();
    this.changed.emit();
  }

  /** Runs one request as a record of `trace`: `send` gets the observer for its attempts. */
  async record<T>(
    method: string,
    path: string,
    trace: Trace,
    send: (observer: TransportObserver) => Promise<T>,
  ): Promise<T> {
    const record = this.begin(method, path, trace);
    try {
      const result = await send(this.observe(record));
      this.finish(record);
      return result;
    } catch (error) {
      this.finish(record, { error });
      throw error;
    }
  }

  /** Plain copies, oldest first. */
  records(): RequestRecord[] {
    return this.#ring.toArray().map((r) => ({
      id: r.id,
      method: r.method,
      path: r.path,
      startedAtMillis: r.startedAtMillis,
      durationMillis: r.endedAtMillis === null ? null : r.endedAtMillis - r.startedAtMillis,
      outcome: r.outcome,
      status: r.status,
      code: r.code,
      attempts: r.attempts.map((a) => ({ ...a, retry: a.retry && { ...a.retry } })),
      cause: { ...r.trace.cause },
      callers: r.trace.callers,
    }));
  }
}
