/**
 * Sending one kept write, and what its answer means for it: applied; refused (the service or the app's API said no:
 * reported, never sent again); to be sent again (the network or the service is away, or the service failed: it waits);
 * or dropped (the session it belongs to is gone). A broker action whose last send may have reached the service is first
 * checked against what the service holds (actions.ts), so that it is never applied twice; a `client.fetch` call goes
 * with its idempotency key, so that the app's server applies it once.
 */
import type { AppRequest, AppResponse } from '../../contract/appRequests.js';
import { isAllowedOrigin } from '../appRequests/allowedOrigins.js';
import { appTokensOf } from '../appRequests/appTokens.js';
import { sendWithToken } from '../appRequests/sendWithToken.js';
import { queueableAction, type ServiceReader } from './actions.js';
import type { StoredWrite } from './store.js';
import type { WriteKit } from './writeKit.js';
import type { ServiceMethods } from '../api/context.js';
import type { WriteQueueParts } from './writeQueueParts.js';

export type Sent =
  | { outcome: 'applied'; result: unknown }
  /** `result`: the answer a `client.fetch` call gets all the same (a 4xx is an answer). */
  | { outcome: 'refused'; error: unknown; result?: AppResponse }
  /** `answered`: the service (or the app's API) answered with a failure, which counts towards giving up. */
  | { outcome: 'again'; error: unknown; uncertain: boolean; answered: boolean }
  | { outcome: 'dropped'; error: unknown };

/** What a failure of a send means. */
export function judgeFailure(error: unknown, kit: WriteKit): Sent {
  if (error instanceof kit.NetworkError)
    return { outcome: 'again', error, uncertain: error.attempts > 0, answered: false };
  // fetch's own network failure (the app's API): the request may have gone.
  if (error instanceof TypeError) return { outcome: 'again', error, uncertain: true, answered: false };
  if (error instanceof kit.ClientError) {
    if (error.code === 'NOT_SIGNED_IN') return { outcome: 'dropped', error };
    if (error.code === 'BROKER_UNAVAILABLE' || error.code === 'LOCK_TIMEOUT')
      return { outcome: 'again', error, uncertain: false, answered: false };
  }
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && (status >= 500 || status === 429))
    return { outcome: 'again', error, uncertain: true, answered: true };
  return { outcome: 'refused', error };
}

/** A `client.fetch` call's answer, read whole (nobody may be waiting for it when it comes). */
export async function readResponse(response: Response, queued: boolean): Promise<AppResponse> {
  const headers: Array<[string, string]> = [];
  response.headers.forEach((value, name) => headers.push([name, value]));
  return {
    status: response.status,
    statusText: response.statusText,
    headers,
    body: new Uint8Array(await response.arrayBuffer()),
    queued,
  };
}

/** Refuses a URL of an origin the app did not allow, before anything is sent. */
export function checkOrigin(parts: Pick<WriteQueueParts, 'appRequests' | 'kit'>, url: string): void {
  if (!isAllowedOrigin(parts.appRequests, url))
    throw new parts.kit.ClientError(
      'ORIGIN_NOT_ALLOWED',
      `${new URL(url).origin} is not an origin the app allows (appRequests.origins): nothing was sent.`,
    );
}

/** Sends a `client.fetch` call the broker holds, with its token and idempotency key. */
export async function sendAppRequestNow(request: AppRequest, parts: WriteQueueParts): Promise<Response> {
  checkOrigin(parts, request.url);
  const headers = new Headers(request.headers);
  headers.set('idempotency-key', request.idempotencyKey);
  const init: RequestInit = { method: request.method, headers };
  if (request.body !== null) init.body = request.body as Uint8Array<ArrayBuffer>;
  const { ClientError } = parts.kit;
  return sendWithToken(new Request(request.url, init), {
    fetch: parts.fetch,
    tokens: appTokensOf(parts.session, parts.clock, parts.marginMillis),
    config: parts.appRequests,
    requireUser:
      request.requireUser === true
        ? () => new ClientError('NOT_SIGNED_IN', 'Nobody is signed in: this request needs a user and was not sent.')
        : undefined,
  });
}

/** What the service holds, read as the broker (its own turns), camelCased. */
export function serviceReader(parts: Pick<WriteQueueParts, 'client' | 'kit'>): ServiceReader {
  return async (path, query) => parts.kit.camelize(await parts.client.request({ method: 'GET', path, query }));
}

/** Sends `write` once (checking first, for an action whose last send may have reached the service). */
export async function sendWrite(write: StoredWrite, parts: WriteQueueParts, services: ServiceMethods): Promise<Sent> {
  const { kit } = parts;
  try {
    if (write.action !== undefined) {
      const { method, args } = write.action;
      const action = queueableAction(method);
      const held = write.uncertain ? await action?.applied(serviceReader(parts), args) : null;
      if (held) {
        // Nothing was sent: what the cache shows comes from the service.
        for (const filter of action!.affected(args)) parts.queries.invalidate(filter);
        return { outcome: 'applied', result: held.result };
      }
      const call = (services as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]!;
      return { outcome: 'applied', result: await call(...args) };
    }
    const response = await readResponse(await sendAppRequestNow(write.request!, parts), true);
    if (response.status < 400) return { outcome: 'applied', result: response };
    // Its body is the app's: not repeated in a report.
    const error = new kit.HttpStatusError(response.status, '', `The app's API answered HTTP ${response.status}.`);
    if (response.status >= 500 || response.status === 429)
      return { outcome: 'again', error, uncertain: true, answered: true };
    return { outcome: 'refused', error, result: response };
  } catch (error) {
    return judgeFailure(error, kit);
  }
}
