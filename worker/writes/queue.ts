/**
 * Writes that wait out an outage (issue 43, item 3), for the signed-in user: a queueable broker action or `client.fetch`
 * call made while the device is offline or the service unreachable (or while earlier ones still wait: order is kept)
 * is stored (store.ts), shown to every tab (the `pendingChanges` query), shown in the cache as if done
 * (writeOverlays.ts), and sent in order once the service answers and the same user's session is confirmed
 * (writeSender.ts). Signing out, or another user signing in, drops the user's waiting writes, reported as refused ones
 * are (WRITE_DROPPED).
 *
 * Like TanStack Query's paused mutations, the call that made a kept write resolves when it is applied (or rejects when
 * refused or dropped), if its tab is still there; unlike them, the write outlives the tab, the broker and a browser
 * restart (IndexedDB), and every tab sees it. Workbox's background sync replays requests from the service worker's
 * `sync` event, which only Chromium fires, and knows nothing of sessions: it would replay a write with whatever
 * credentials the request carried, after a sign-out or for another user. Here the queue lives with the session.
 *
 * This module is the broker's lazy part (`LazyParts.writes`): what it shares with the broker's chunk comes in its kit.
 */
import type { AppRequest, AppResponse } from '../../contract/appRequests.js';
import { queueableAction } from './actions.js';
import { checkOrigin, judgeFailure, readResponse, sendAppRequestNow } from './send.js';
import { openWriteStore } from './store.js';
import { overlayShower } from './writeOverlays.js';
import { WriteRecords } from './writeRecords.js';
import { WriteSender } from './writeSender.js';
import type { Transport } from '../../protocol/transport.js';
import type { ApiTransports } from '../api/context.js';
import type { WriteQueue, WriteQueueParts } from './writeQueueParts.js';

/**
 * While writes wait and the service is away, its API root is asked this often (one request a second for every tab,
 * only then): a write goes within about this long of the service's return, where the broker's own probes back off to
 * 15 s.
 */
export const CHECK_WHILE_WAITING_MILLIS = 1000;
/**
 * A round that had to stop (the app's API or the service away) is tried again after this, for RETRIES_AT_FIRST_PACE
 * rounds (a minute), then at the slower pace: a write goes soon after a short outage, and a long one costs little.
 */
const RETRY_MILLIS = 500;
const SLOW_RETRY_MILLIS = 10_000;
const RETRIES_AT_FIRST_PACE = 120;

export async function createWriteQueue(parts: WriteQueueParts): Promise<WriteQueue> {
  const { session, connectivity, queries, clock, kit } = parts;
  const userId = () => {
    const state = session.state();
    return state.status === 'signed-in' ? state.userId : null;
  };
  const store = await openWriteStore(parts.inMemory, kit.openDB, parts.warn);
  const showOverlays = overlayShower(queries);
  const timers = { retry: null as unknown, check: null as unknown, retries: 0 };
  let closed = false;
  const records: WriteRecords = new WriteRecords(parts, store, userId, () => {
    showOverlays(records.writes, userId());
    checkWhileAway();
  });
  const sender = new WriteSender(parts, parts.services(sentOnce), records, userId);

  /** While writes wait and the service is away, asks it every CHECK_WHILE_WAITING_MILLIS; its answer is news. */
  function checkWhileAway(): void {
    const user = userId();
    if (closed || user === null || !records.waitsFor(user) || timers.check !== null) return;
    timers.check = clock.setTimeout(() => {
      timers.check = null;
      if (connectivity.isOffline)
        void parts.fetch(`${parts.baseUrl}/api/v1`, { cache: 'no-store' }).then(
          (answer) => connectivity.recordResponse(answer.status),
          () => undefined,
        );
      checkWhileAway();
    }, CHECK_WHILE_WAITING_MILLIS);
  }

  let flushing: Promise<void> | null = null;
  let flushAgain = false;
  /** One round of sending at a time; a round asked for meanwhile follows it. */
  const flush = (): Promise<void> => {
    if (closed) return Promise.resolve();
    if (flushing !== null) {
      flushAgain = true;
      return flushing;
    }
    const round = sender.round().then(
      (done) => {
        if (done) timers.retries = 0;
        else retryLater();
      },
      () => retryLater(),
    );
    flushing = round.finally(() => {
      flushing = null;
      if (flushAgain && !closed) {
        flushAgain = false;
        void flush();
      }
    });
    return flushing;
  };
  function retryLater(): void {
    if (closed || timers.retry !== null) return;
    timers.retries += 1;
    timers.retry = clock.setTimeout(
      () => {
        timers.retry = null;
        void flush();
      },
      timers.retries <= RETRIES_AT_FIRST_PACE ? RETRY_MILLIS : SLOW_RETRY_MILLIS,
    );
  }
  const sessionChanged = async () => {
    const state = session.state();
    if (state.status === 'loading') return;
    await sender.drop(userId());
    records.publish();
    void flush();
  };
  /** Keeps a write, sends what waits if the service answers, and waits for the write's answer. */
  const keepThen = async (fields: Parameters<WriteRecords['keep']>[0]) => {
    const { answer } = await records.keep(fields);
    void flush();
    return answer;
  };

  const stops = [
    session.subscribe(() => void sessionChanged()),
    connectivity.subscribe((snapshot) => {
      if (snapshot.state !== 'online') return;
      timers.retries = 0;
      void flush();
    }),
    // A fetch brought the service's value: a write still waiting shows over it.
    queries.cache.updated.subscribe(() => showOverlays(records.writes, userId())),
  ];
  await session.start();
  await records.reload();
  await sessionChanged();

  return {
    pending: () => records.pending,
    onChange: (listener) => records.onChange(listener),
    flush,
    async run(method, args, now) {
      if (queueableAction(method) === undefined) return now();
      await session.start();
      const user = userId();
      if (user === null) return now();
      let uncertain = false;
      if (!records.waitsFor(user) && !connectivity.isOffline) {
        try {
          return await now();
        } catch (error) {
          // Only a service that could not be reached keeps a write; any answer is the answer.
          if (!(error instanceof kit.NetworkError)) throw error;
          uncertain = error.attempts > 0;
        }
      }
      return keepThen({ kind: 'action', userId: user, label: method, action: { method, args }, uncertain });
    },
    async sendAppRequest(request) {
      checkOrigin(parts, request.url);
      await session.start();
      return sendAppRequest(request, parts, records, userId(), keepThen);
    },
    async dismiss(id) {
      const write = records.writes.find((w) => w.id === id);
      if (write === undefined) return;
      if (write.state !== 'refused' && write.state !== 'dropped')
        throw new kit.InvalidArgumentError(
          'id',
          'Only a refused or dropped change can be dismissed: this one is still to be sent.',
        );
      await records.remove(write);
    },
    close() {
      closed = true;
      for (const stop of stops) stop();
      if (timers.retry !== null) clock.clearTimeout(timers.retry);
      if (timers.check !== null) clock.clearTimeout(timers.check);
      records.close();
    },
  };
}

/** A queueable `client.fetch` call: sent now, or kept while the service is away or earlier ones wait. */
async function sendAppRequest(
  request: AppRequest,
  parts: WriteQueueParts,
  records: WriteRecords,
  user: string | null,
  keep: (fields: Parameters<WriteRecords['keep']>[0]) => Promise<unknown>,
): Promise<AppResponse> {
  // Nobody's write is kept: without a user it goes now, or not at all.
  if (user === null) return readResponse(await sendAppRequestNow(request, parts), false);
  let uncertain = false;
  if (!records.waitsFor(user) && !parts.connectivity.isOffline) {
    try {
      return await readResponse(await sendAppRequestNow(request, parts), false);
    } catch (error) {
      const judged = judgeFailure(error, parts.kit);
      if (judged.outcome !== 'again' || judged.answered) throw error;
      uncertain = judged.uncertain;
    }
  }
  const label = request.label ?? `${request.method.toUpperCase()} ${new URL(request.url).pathname}`;
  return (await keep({ kind: 'request', userId: user, label, request, uncertain })) as AppResponse;
}

/**
 * The broker's calls as a kept write makes them: a write goes once per send, never again inside the transport after a
 * network failure (which it does for PATCH, PUT and DELETE: repeating them changes nothing). The answer of a send may
 * be lost after the service applied it: the queue then asks the service what it holds before it sends the write again
 * (actions.ts), so that a write is applied once.
 */
function sentOnce(own: ApiTransports): ApiTransports {
  const once = (transport: Transport<'client'>): Transport<'client'> => ({
    ...transport,
    request: (request) => transport.request(request.method === 'GET' ? request : { ...request, idempotent: false }),
    withUserTokens: (tokens) => once(transport.withUserTokens(tokens)),
  });
  return { ...own, client: once(own.client) };
}
