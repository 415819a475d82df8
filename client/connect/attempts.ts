/**
 * Reaching one host's broker within the connect timeout: a fresh entry per attempt, each later
 * attempt starting when the ones before it have been silent for their deadline, the first to answer
 * winning. Part of the tab's lazy connection (loaded by `connection.ts` after the first render):
 * what it needs from the main chunk (the error classes, the broker's config) comes in a
 * `BrokerTarget`, never from an import of a module the main chunk loads.
 */
import type { TabHello, TabListener } from '../../contract/api.js';
import { WORKER_FULL } from '../../contract/wire.js';
import type { AttemptedConnection, BrokerTarget, TabErrors, WatchedConnection } from './brokerChannel.js';
import { brokerConfigOf } from './brokerConfig.js';
import { rejectAfter } from './lifetime.js';
import { failingWhenLost } from './lostHost.js';
import { connectOverPort, isRefusal, isStandby, refusal } from './rpc.js';

/** How long the first attempt to reach a broker waits for its answer (see `attemptDeadlines`). */
export const FIRST_ANSWER_MILLIS = 1000;

/**
 * How long each attempt to reach a broker waits, within the whole connect timeout: the first
 * FIRST_ANSWER_MILLIS, each next one twice as long, and the last whatever is left (never a sliver).
 * A warm broker answers in milliseconds and a cold one in a few hundred, so an attempt that hears
 * nothing for a second went to a worker that will not answer it (an instance being torn down as
 * the page reloaded), and a new attempt reaches the next instance.
 */
export function attemptDeadlines(totalMillis: number, firstMillis = FIRST_ANSWER_MILLIS): number[] {
  const deadlines: number[] = [];
  let left = totalMillis;
  let next = firstMillis;
  while (left > 0) {
    const wait = left - next < next ? left : next;
    deadlines.push(wait);
    left -= wait;
    next = wait * 2;
  }
  return deadlines;
}

/** One way into a broker: a fresh entry port for each attempt. */
export interface BrokerEntryAttempt {
  port: MessagePort;
  /** Rejects when the host cannot start at all (its script does not load): trying again would not help. */
  failed?: Promise<never>;
  close(): void;
}

/**
 * Connects through a fresh entry from `openEntry` per attempt (numbered from 0). The first attempt
 * starts at once; each later one starts when the ones before it have been silent for their deadline
 * (`attemptDeadlines`), without giving them up: every attempt may answer until the whole connect
 * timeout, and the first to answer wins (the others are closed, and one that answers later is told
 * goodbye). So a broker that is only slow to start (a cold worker on a busy device) still gets the
 * tab, as do the tabs that ask it after, rather than a second instance that would split them; and
 * one that will never answer (an instance being torn down, or lingering) costs a second, not the
 * whole timeout. An instance that answers `STANDBY` (another instance serves this config, whose
 * tokens are kept in memory) has the next attempt start at once, the others still waiting; when no
 * attempt is left, that is the answer (a refusal: a weaker host would split the tabs). Any other
 * failure (a refusal, a script that does not load) ends the attempts at once; a worker that is full is not a refusal
 * (`notRefusedWhenFull`).
 */
export function connectWithRetries(
  openEntry: (attempt: number) => BrokerEntryAttempt,
  target: BrokerTarget,
  hello: TabHello,
  listener: TabListener,
  hostGone?: Promise<void>,
): Promise<AttemptedConnection> {
  const total = target.options.connectTimeoutMillis ?? 8000;
  const deadlines = attemptDeadlines(total);
  const silence = silenceError(target.errors, total, deadlines.length);
  return new Promise((resolve, reject) => {
    const entries: BrokerEntryAttempt[] = [];
    let nextAttempt: ReturnType<typeof setTimeout> | undefined;
    const startedAtMillis = performance.now();
    let settled = false;
    let started = 0;
    let unanswered = deadlines.length;
    let standby = false;
    const settle = () => {
      settled = true;
      clearTimeout(nextAttempt);
    };
    const fail = (error: unknown) => {
      settle();
      for (const other of entries) other.close();
      reject(error);
    };
    const attempt = () => {
      if (settled || started === deadlines.length) return;
      const index = started++;
      // The next one when this one has been silent for its deadline (sooner if it answers STANDBY).
      clearTimeout(nextAttempt);
      if (started < deadlines.length) nextAttempt = setTimeout(attempt, deadlines[index]);
      let entry: BrokerEntryAttempt;
      try {
        entry = openEntry(index);
      } catch (error) {
        // The host cannot even be asked (a SharedWorker blocked by the page's policy).
        return fail(error);
      }
      entries.push(entry);
      const left = total - (performance.now() - startedAtMillis);
      const connecting = connectOverEntry(entry.port, target, hello, listener, hostGone, (promise) =>
        rejectAfter(promise, left, () => silence),
      );
      (entry.failed ? Promise.race([connecting, entry.failed]) : connecting).then(
        (connection) => {
          if (settled) return dismiss(connection, entry);
          settle();
          for (const other of entries) if (other !== entry) other.close();
          resolve(won(connection, entry, index + 1));
        },
        (error: unknown) => {
          entry.close();
          unanswered -= 1;
          if (settled) return;
          if (isStandby(error)) {
            standby = true;
            attempt();
          } else if (error !== silence) return fail(notRefusedWhenFull(error, target.errors));
          if (unanswered === 0) {
            fail(standby ? standbyRefusal(target.errors, total) : silence);
          }
        },
      );
    };
    attempt();
  });
}

/**
 * A worker that serves as many configs as it may (its refusal begins with WORKER_FULL) refused no option of this tab's:
 * the service worker, which has no name to bind it to one config, and a SharedWorker under a name of the app's own
 * choosing serve any config a page of the origin asks for, and such a page can fill them with made-up ones. That is
 * not a broker's answer for this config, so the tab tries its next host (openBroker.ts), rather than being left
 * without a broker while the page holds the slots.
 */
function notRefusedWhenFull(error: unknown, errors: TabErrors): unknown {
  if (!isRefusal(error) || !(error instanceof Error) || !error.message.startsWith(WORKER_FULL)) return error;
  return new errors.ClientError('BROKER_UNAVAILABLE', error.message);
}

/** An attempt that answered after another one won: this broker must not keep a tab nobody uses. */
function dismiss(connection: WatchedConnection, entry: BrokerEntryAttempt): void {
  void connection.api.goodbye().catch(() => undefined);
  connection.close();
  entry.close();
}

/** The attempt that answered first: its connection, which closes its entry with it. */
function won(connection: WatchedConnection, entry: BrokerEntryAttempt, attempts: number): AttemptedConnection {
  return {
    ...connection,
    attempts,
    close: () => {
      connection.close();
      entry.close();
    },
  };
}

/** What the attempts fail with when no broker answered any of them within the connect timeout. */
function silenceError(errors: TabErrors, totalMillis: number, attempts: number): Error {
  return new errors.ClientError(
    'BROKER_UNAVAILABLE',
    attempts === 1
      ? `The broker did not answer within ${totalMillis} ms.`
      : `The broker did not answer within ${totalMillis} ms (${attempts} attempts).`,
  );
}

/**
 * What the attempts fail with when the only answers were `STANDBY`: a refusal, since a weaker host
 * would split the tabs between two brokers.
 */
function standbyRefusal(errors: TabErrors, totalMillis: number): Error {
  return refusal(
    new errors.ClientError(
      'BROKER_UNAVAILABLE',
      `Another instance of the broker serves this project (its tokens are kept in memory) and did not answer this tab within ${totalMillis} ms; no other host is tried, which would split the tabs.`,
    ),
  );
}

/**
 * Ports never say that the other end died, so the connection is lost when the host says so
 * (`hostGone`) or when the tab is told (`markLost`).
 */
async function connectOverEntry(
  port: MessagePort,
  target: BrokerTarget,
  hello: TabHello,
  listener: TabListener,
  hostGone: Promise<void> | undefined,
  timeout: <T>(promise: Promise<T>) => Promise<T>,
): Promise<WatchedConnection> {
  const connection = await connectOverPort(
    port,
    brokerConfigOf(target),
    hello,
    (batch) => listener.deliver(batch),
    timeout,
    target.errors,
  );
  let markLost!: () => void;
  const lost = new Promise<void>((resolve) => (markLost = resolve));
  void hostGone?.then(markLost);
  return { api: failingWhenLost(connection.api, lost, target.errors), lost, markLost, close: () => connection.close() };
}
