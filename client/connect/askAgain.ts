/**
 * A broker's host can go away while a call waits for its answer: an extension's idle background
 * is stopped by the browser, a new service worker takes over, a SharedWorker is killed. Those calls
 * fail with BROKER_UNAVAILABLE ("stopped before it answered"), and the client connects again. A call
 * that changes nothing at the service (a read, a refetch, the access token, the status) is then asked
 * again of the next broker, once, so that a page never sees the host's restart in a read. A call that
 * changes something is not: the lost broker may have done it, and doing it twice is the caller's
 * decision. Code checks and an invitation's details change something: the service counts each one
 * against the code's attempts (issue 39, item 5). Part of the tab's lazy connection.
 */
import type { BrokerApi } from '../../contract/api.js';
import type { TabErrors } from './brokerChannel.js';

/** What asking again needs of a connection (`Connection`, connection.ts). */
interface LosableConnection {
  api: BrokerApi;
  /** Settles when the host went away under the tab. */
  lost: Promise<void>;
  close(goodbye?: boolean): void;
}

/**
 * The broker's calls that change nothing at the service, so that asking one twice is the same as asking once. Not the
 * code checks (`checkPasswordResetCode`, `checkEmailVerificationCode`, `checkTeamInvitationCode`,
 * `getTeamInvitationDetails`): each uses one of the code's attempts, and a lost one may have reached the service.
 */
export const REPEATABLE_CALLS: ReadonlySet<string> = new Set<keyof BrokerApi>([
  'status',
  'read',
  'refetch',
  'getAccessToken',
]);

// Only the errors made here mean "never answered": the broker's own BROKER_UNAVAILABLE is its answer.
const unanswered = new WeakSet<Error>();

/** The error for a call whose broker went away before answering it. */
export function unansweredError(errors: TabErrors, message: string): Error {
  const error = new errors.ClientError('BROKER_UNAVAILABLE', message);
  unanswered.add(error);
  return error;
}

// A connection's API as made, before asking again was added: the call asked again uses it, so that
// a call is asked again at most once however many brokers go away.
const askedOnce = new WeakMap<BrokerApi, BrokerApi>();

/**
 * The connection, its repeatable calls asked again of `next()` (the client's next connection) when
 * this one was lost before answering them; not after `close()`, which is the app's own doing.
 */
export function askingAgainWhenLost<C extends LosableConnection>(connection: C, next: () => Promise<BrokerApi>): C {
  const { api, lost } = connection;
  // Closed by the app while the broker was there. The client also closes a connection it lost, on
  // its way to the next one: that close comes after the loss, which this reaction (added before the
  // client's own) has seen.
  let closed = false;
  let gone = false;
  void lost.then(() => (gone = true));
  const wrapped = new Proxy(api, {
    get(target, name) {
      const method = Reflect.get(target, name) as unknown;
      if (typeof name !== 'string' || !REPEATABLE_CALLS.has(name) || typeof method !== 'function') return method;
      return (...args: unknown[]) =>
        (method as (...args: unknown[]) => Promise<unknown>).apply(target, args).catch((error: unknown) => {
          if (closed || !(error instanceof Error) || !unanswered.has(error)) throw error;
          // Reactions on `lost` run in the order they were added: the client's own, added when it
          // opened this connection, has already started the next one when this one asks for it.
          return lost.then(next).then((again) => {
            const once = askedOnce.get(again) ?? again;
            return (once[name as keyof BrokerApi] as (...args: unknown[]) => Promise<unknown>)(...args);
          });
        });
    },
  });
  askedOnce.set(wrapped, api);
  return {
    ...connection,
    api: wrapped,
    close(goodbye) {
      closed ||= !gone;
      connection.close(goodbye);
    },
  };
}
