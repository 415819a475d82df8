/**
 * `client.fetch` (issue 43, item 1): a `fetch` for the app's own API that attaches the user's access token, only to the
 * origins the app allows, renews it once when the API answers 401 (one token request for every tab: the broker's
 * renewal) and sends the request once more. The request itself goes from the page as any `fetch` would, so streamed
 * bodies and answers, `AbortSignal`s and the browser's own connection handling are the page's; the token comes from the
 * broker and is kept by the tab until the broker would renew it, or the session changes.
 *
 * With `appRequests.attachInServiceWorker` the page never holds a token: the call goes out as a plain `fetch`, once the
 * service worker controls the page, and the worker attaches the token. A call marked `queue` goes to the broker, which
 * sends it now or keeps it while offline (`offlineWrites`). A lazy chunk of its own: it shares no module with the tab's
 * main chunk (its error classes come in `AppFetchKit`).
 */
import type { BrokerApi } from '../../contract/api.js';
import type { AppResponse } from '../../contract/appRequests.js';
import { appTokenHeader, DEFAULT_TOKEN_HEADER } from '../../contract/appRequests.js';
import type { SessionInfo } from '../../contract/state.js';
import type { QuerySpec } from '../../contract/queries.js';
import type { TabErrors } from '../connect/brokerChannel.js';
import type { ConnectOptions } from '../connectOptions.js';

/** The options of one `client.fetch` call. */
export interface AppFetchOptions {
  /** Refuse (NOT_SIGNED_IN) rather than send the request without a token when nobody is signed in. */
  requireUser?: boolean;
  /**
   * A write that may wait out an outage (needs `offlineWrites: true`): the broker sends it now, or keeps it while the
   * device is offline or the service unreachable and sends it, in order, once it answers (its answer then comes late).
   * It goes with `Idempotency-Key: <idempotencyKey>`, so that your server applies it once even if it arrives twice. Its
   * body is read whole (at most 1 MB) and its answer too; `label` is what `usePendingChanges()` shows.
   */
  queue?: { idempotencyKey: string; label?: string };
}

/** The client as this chunk uses it: its session query, which drops the token the tab keeps when it changes. */
type SessionWatch = { subscribe(query: QuerySpec, listener: () => void): () => void };
/** The options this chunk reads. */
type FetchOptions = Pick<ConnectOptions, 'appRequests' | 'offlineWrites' | 'connectTimeoutMillis'>;

type Fetch = (input: RequestInfo | URL, init?: RequestInit, options?: AppFetchOptions) => Promise<Response>;

const MAX_QUEUED_BODY_BYTES = 1_048_576;
/** Statuses whose answer has no body (`new Response` refuses one). */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

/** `promise`, or the signal's reason as soon as it aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | null | undefined): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Resolves once a service worker controls the page (the connection asked it to claim the page: `attachInServiceWorker`),
 * or fails after `millis`: a request sent before would go without a token.
 */
function controlled(errors: TabErrors, millis: number): Promise<void> {
  const container = (globalThis as { navigator?: { serviceWorker?: ServiceWorkerContainer } }).navigator?.serviceWorker;
  if (container?.controller) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new errors.ClientError(
            'BROKER_UNAVAILABLE',
            `The service worker did not take this page within ${millis} ms: the request was not sent (it would have gone without a token).`,
          ),
        ),
      millis,
    );
    container?.addEventListener(
      'controllerchange',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/**
 * The client's `fetch`, given the client (`client` for its session query, `api` for its broker), its options and the
 * main chunk's error classes.
 */
export function appFetch(
  client: SessionWatch,
  api: () => Promise<BrokerApi>,
  options: FetchOptions,
  errors: TabErrors,
): { fetch: Fetch } {
  let made = byClient.get(client);
  if (made === undefined) byClient.set(client, (made = makeFetch(client, api, options, errors)));
  return made;
}

/** One `fetch` per client: the token it keeps is the client's. */
const byClient = new WeakMap<SessionWatch, { fetch: Fetch }>();

function makeFetch(
  client: SessionWatch,
  api: () => Promise<BrokerApi>,
  options: FetchOptions,
  errors: TabErrors,
): { fetch: Fetch } {
  const origin = (globalThis as { location?: { origin?: string } }).location?.origin ?? null;
  const allowed = new Set(
    (options.appRequests?.origins ?? (origin === null ? [] : [origin])).map((o) => o.replace(/\/$/, '')),
  );
  const invalid = (argument: string, message: string) =>
    errors.deserializeError({ kind: 'invalid-argument', code: 'INVALID_ARGUMENT', argument, message });
  const tokenHeader = (options.appRequests?.tokenHeader ?? DEFAULT_TOKEN_HEADER).toLowerCase();
  const inWorker = options.appRequests?.attachInServiceWorker === true;
  /** The token this tab keeps, until the broker would renew it or the session changes. */
  let kept: { token: string | null; until: number } | null = null;
  /** The question under way, and the refused token it is about: this tab's calls share it. */
  let asking: { about: string | undefined; answer: Promise<string | null> } | null = null;
  let watching = false;

  const token = (refused?: string): Promise<string | null> => {
    if (!watching) {
      watching = true;
      client.subscribe({ kind: 'session' }, () => (kept = null));
    }
    if (refused === undefined && kept !== null && Date.now() < kept.until) return Promise.resolve(kept.token);
    if (asking !== null && asking.about === refused) return asking.answer;
    const answer = api()
      .then((broker) => broker.appToken(refused))
      .then(({ accessToken, reuseUntilMillis }) => {
        kept = reuseUntilMillis === null ? null : { token: accessToken, until: reuseUntilMillis };
        return accessToken;
      })
      .finally(() => {
        if (asking?.answer === answer) asking = null;
      });
    asking = { about: refused, answer };
    return answer;
  };

  const refuseOrigin = (url: URL) =>
    new errors.ClientError(
      'ORIGIN_NOT_ALLOWED',
      `client.fetch sends the user's token only to the app's own origins (appRequests.origins): ${url.origin} is not one, and nothing was sent.`,
    );
  const notSignedIn = () =>
    new errors.ClientError('NOT_SIGNED_IN', 'Nobody is signed in: this request needs a user and was not sent.');

  async function fetchWithToken(input: RequestInfo | URL, init: RequestInit | undefined, requireUser: boolean) {
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    const first = await abortable(token(), signal);
    if (first === null) {
      if (requireUser) throw notSignedIn();
      return fetch(input, init);
    }
    // A body that can be sent twice: a Request's is copied first; a stream given in `init` cannot be, and goes once.
    const again = input instanceof Request && init?.body === undefined ? input.clone() : input;
    const canRetry = !(init?.body instanceof ReadableStream);
    const send = (target: RequestInfo | URL, value: string) => {
      const headers = new Headers(init?.headers ?? (target instanceof Request ? target.headers : undefined));
      const [name, header] = appTokenHeader(tokenHeader, value);
      headers.set(name, header);
      // Browsers drop only Authorization on a redirect to another origin: a header of the app's own is never followed.
      return fetch(target, { ...init, headers, ...(name === 'authorization' ? {} : { redirect: 'error' as const }) });
    };
    const response = await send(input, first);
    if (response.status !== 401 || !canRetry) return response;
    const next = await abortable(token(first), signal);
    if (next === null || next === first) return response;
    await response.body?.cancel().catch(() => undefined);
    return send(again, next);
  }

  async function queued(request: Request, queue: NonNullable<AppFetchOptions['queue']>, requireUser: boolean) {
    if (options.offlineWrites !== true)
      throw invalid('options.queue', 'client.fetch(…, { queue }) needs offlineWrites: true in the options.');
    if (typeof queue.idempotencyKey !== 'string' || queue.idempotencyKey === '' || queue.idempotencyKey.length > 200)
      throw invalid('options.queue.idempotencyKey', 'options.queue.idempotencyKey must be 1 to 200 characters.');
    const body = request.body === null ? null : new Uint8Array(await request.arrayBuffer());
    if (body !== null && body.length > MAX_QUEUED_BODY_BYTES)
      throw invalid('init.body', `A queued call's body must be at most ${MAX_QUEUED_BODY_BYTES} bytes.`);
    request.signal.throwIfAborted();
    const headers: Array<[string, string]> = [];
    request.headers.forEach((value, name) => headers.push([name, value]));
    const answer: AppResponse = await (
      await api()
    ).sendAppRequest({
      url: request.url,
      method: request.method,
      headers,
      body,
      idempotencyKey: queue.idempotencyKey,
      ...(queue.label === undefined ? {} : { label: queue.label }),
      ...(requireUser ? { requireUser } : {}),
    });
    return new Response(NO_BODY.has(answer.status) ? null : (answer.body as Uint8Array<ArrayBuffer>), {
      status: answer.status,
      statusText: answer.statusText,
      headers: answer.headers,
    });
  }

  return {
    async fetch(input, init, callOptions = {}) {
      const url = new URL(input instanceof Request ? input.url : String(input), origin ?? undefined);
      if (!allowed.has(url.origin)) throw refuseOrigin(url);
      const requireUser = callOptions.requireUser === true;
      if (callOptions.queue !== undefined) return queued(new Request(input, init), callOptions.queue, requireUser);
      if (!inWorker) return fetchWithToken(input, init, requireUser);
      // The service worker attaches the token: the page sends a plain request once the worker controls it.
      const broker = await abortable(api(), init?.signal);
      await abortable(controlled(errors, options.connectTimeoutMillis ?? 8000), init?.signal);
      if (requireUser && ((await broker.read({ kind: 'session' })) as SessionInfo).status !== 'signed-in')
        throw notSignedIn();
      return fetch(input, init);
    },
  };
}
