/**
 * An extension context's connection to the broker in its background, over a `runtime.Port`
 * (`portCalls.ts`). A port says when the other side is gone, unlike a MessagePort: when the
 * background stops (idle, or killed), the port disconnects, the calls still waiting fail with
 * BROKER_UNAVAILABLE, and the client connects again, which starts the background again; what is on
 * screen subscribes again to the broker there. Here: a port per attempt within the connect timeout,
 * the API over it, and what the context tells the broker.
 */
import type { BrokerApi, Delivery, TabHello } from '../../contract/api.js';
import type { ExtensionApi, ExtensionConnected } from '../../contract/webExtension.js';
import { AUTHBROKER_VERSION } from '../../protocol/version.js';
import type { BrokerTarget, TabErrors } from '../connect/brokerChannel.js';
import type { ConnectionModule } from '../brokerClient.js';
import type { Connection } from '../connect/connection.js';
import { receiving } from '../connect/deliveries.js';
import { askingAgainWhenLost } from '../connect/askAgain.js';
import type { HandlerUrls } from '../handlerUrls.js';
import { keepSnapshots } from '../kept/keptCopyWriter.js';
import { rejectAfter } from '../connect/lifetime.js';
import { openPort, type PortCalls } from './portCalls.js';

/** How long to wait before opening a port again after one failed at once (the background stopped while answering). */
const RETRY_FIRST_MILLIS = 50;
/**
 * How long the first port waits for the background's answer before another is opened (each next
 * one waits twice as long, within the connect timeout). A background answers a warm port in a few
 * ms and a cold start in a few hundred; a port opened while the browser was still stopping the
 * background can stay unanswered for good.
 */
const FIRST_ANSWER_MILLIS = 1000;

/** The part of the app's options the background's broker receives, compared there with its own. */
export function extensionBrokerConfig({ options, baseUrl }: Pick<BrokerTarget, 'options' | 'baseUrl'>): {
  baseUrl: string;
  projectId: string;
  publishableClientKey: string;
  internalPublishableClientKey?: string;
} {
  return {
    baseUrl,
    projectId: options.projectId,
    publishableClientKey: options.publishableClientKey,
    ...(options.internalPublishableClientKey === undefined
      ? {}
      : { internalPublishableClientKey: options.internalPublishableClientKey }),
  };
}

/**
 * The API over a port: every method a call; those the background did not open to this context fail at once, saying so.
 */
function apiOver(calls: PortCalls, methods: ReadonlySet<string>, errors: TabErrors): BrokerApi {
  return new Proxy({} as BrokerApi, {
    get(_target, name) {
      // Not a thenable: the API is itself the value of a promise.
      if (typeof name !== 'string' || name === 'then') return undefined;
      return (...args: unknown[]) =>
        methods.has(name)
          ? calls.call(name, args)
          : Promise.reject(
              new errors.ClientError(
                'EXTENSION_CONTEXT_REFUSED',
                `${name} is not open to this context: the extension’s background does not serve it here.`,
              ),
            );
    },
  });
}

/** What an extension context tells the broker about itself: the handler pages e-mails link to, when it has any. */
export function extensionHello(urls: HandlerUrls | null): TabHello {
  return {
    version: AUTHBROKER_VERSION,
    ...(urls === null
      ? {}
      : {
          handlerUrls: {
            emailVerification: urls.emailVerification,
            passwordReset: urls.passwordReset,
            magicLinkCallback: urls.magicLinkCallback,
            teamInvitation: urls.teamInvitation,
          },
        }),
  };
}

/** Refusals and bad input are final; a background that stopped while starting is worth another try. */
function worthRetrying(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'BROKER_UNAVAILABLE' && !/cannot be reached/.test((error as Error).message);
}

/**
 * A connection module for one kind of extension context (`portName`): what `createClientOn` loads.
 * `current` is the open connection, for the extension's own methods beside the broker's.
 */
export function portConnection(
  extension: ExtensionApi,
  portName: string,
): ConnectionModule & { current(): BrokerApi | null } {
  let current: BrokerApi | null = null;
  async function connect(
    target: BrokerTarget,
    urls: HandlerUrls | null,
    deliver: (batch: Delivery) => void,
  ): Promise<Connection> {
    const { errors } = target;
    const hello = extensionHello(urls);
    const total = target.options.connectTimeoutMillis ?? 8000;
    const deadline = Date.now() + total;
    const silence = () =>
      new errors.ClientError('BROKER_UNAVAILABLE', `The extension’s background did not answer within ${total} ms.`);
    for (let wait = RETRY_FIRST_MILLIS, patience = FIRST_ANSWER_MILLIS; ; wait *= 2, patience *= 2) {
      const calls = openPort(extension, portName, deliver, errors);
      try {
        const answer = (await rejectAfter(
          calls.call('connect', [extensionBrokerConfig(target), hello]),
          Math.max(0, Math.min(deadline - Date.now(), patience)),
          silence,
        )) as ExtensionConnected;
        const api = apiOver(calls, new Set(answer.methods), errors);
        current = api;
        void calls.lost.then(() => {
          if (current === api) current = null;
        });
        return askingAgainWhenLost<Connection>(
          {
            mode: 'extension',
            api,
            lost: calls.lost,
            close(goodbye = false) {
              if (goodbye) void api.goodbye().catch(() => undefined);
              // A goodbye is sent before the port closes; the broker also lets the context go when it sees the port
              // close.
              setTimeout(() => calls.close(), 0);
            },
          },
          target.again,
        );
      } catch (error) {
        calls.close();
        if (!worthRetrying(error) || Date.now() + wait >= deadline) throw error;
        // A port that heard nothing is tried again at once; one that failed, after a short wait.
        if (!/did not answer/.test((error as Error).message)) await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }
  return { connect, keepSnapshots, receiving, current: () => current };
}
