/**
 * The tab's connection to its broker, which the client loads with import() once the page has
 * rendered what it kept from the last visit (see `createBrokerClient`): Comlink, choosing a host
 * and starting it, the lifetime locks both sides watch, and forwarding the browser's state. A page's
 * first frame waits for none of it. It imports nothing the tab's main chunk imports (what it needs
 * from there arrives in the `BrokerTarget`): bundlers would split a module both load into a chunk
 * of its own, loaded up front by every page.
 */
import type { BrokerApi, Delivery, TabHello } from '../../contract/api.js';
import { isBackgroundPage, type BackgroundReader } from '../../contract/extensionBackground.js';
import type { BrokerMode } from '../../contract/state.js';
import { AUTHBROKER_VERSION } from '../../protocol/version.js';
import { askingAgainWhenLost } from './askAgain.js';
import type { BrokerChannel, BrokerTarget } from './brokerChannel.js';
import { openBroker } from './openBroker.js';
import type { HandlerUrls } from '../handlerUrls.js';
import { checkBrokerOptions } from './brokerConfig.js';
import { forwardBrowserState } from './browserState.js';
import { answeredWithin, BROKER_CONFIRM_MILLIS, holdTabLock, newTabId, whenBrokerGone } from './lifetime.js';

export { receiving } from './deliveries.js';
export { keepSnapshots } from '../kept/keptCopyWriter.js';

/** An open connection: the broker's API for this tab, and what ends it. */
export interface Connection {
  mode: BrokerMode;
  api: BrokerApi;
  /** Settles when the host went away under the tab (the client then connects again). */
  lost: Promise<void>;
  /** Stops forwarding and closes the ports; `goodbye` first tells the broker this tab is leaving. */
  close(goodbye?: boolean): void;
}

/**
 * In one of an extension's own documents (`extension`, its API, found by the main chunk), why the
 * page cannot host a broker: its background page (Firefox's event page) runs the extension's own.
 * None when the app forced `mode: 'in-process'` (`forced`), a broker of the page's own. Asked here,
 * with the lazy chunk, since only extensions' documents need it.
 */
export function backgroundPageProblem(extension: BackgroundReader | null, forced: BrokerMode | null): string | null {
  if (forced === 'in-process' || extension === null || !isBackgroundPage(extension)) return null;
  return "createBrokerClient cannot run in an extension's background: call startExtensionBroker from 'authbroker/extension' there.";
}

let warnedEveryTabAlone = false;

/**
 * Without `sharedWorker` or `serviceWorker` every tab runs a broker of its own (each renews tokens
 * and fetches for itself, and a sign-in reaches other tabs only through storage events): it works,
 * so nothing else would tell the app it lost one broker for all tabs. Said once per page, in a
 * browser, when the first client connects, unless the app chose `mode: 'in-process'`.
 */
export function warnIfEveryTabAlone({ options, forced }: Pick<BrokerTarget, 'options' | 'forced'>): void {
  if (warnedEveryTabAlone || typeof window === 'undefined') return;
  if (options.sharedWorker !== undefined || options.serviceWorker !== undefined || forced === 'in-process') return;
  warnedEveryTabAlone = true;
  console.warn(
    "authbroker: neither the sharedWorker nor the serviceWorker option was given, so every tab runs its own broker (its own token renewals and requests; no shared cache). Add sharedWorker: (name) => new SharedWorker(new URL('authbroker/worker/shared', import.meta.url), { type: 'module', name }) (with Vite; or the URL of authbroker-shared-worker.js) and serviceWorker: '/authbroker-service-worker.js' to createBrokerClient's options, or mode: 'in-process' if one broker per tab is what you want.",
  );
}

/** Problems already said in this page's console (each once, however many clients or reconnections). */
const saidProblems = new Set<string>();

/**
 * What is wrong with the options (an unknown project id, a refused key), said in the console when the tab connects,
 * naming the option, rather than by the first sign-in's failure (the broker finds it out once for all tabs).
 */
async function sayConfigProblems(api: BrokerApi): Promise<void> {
  const problems = await api.configProblems().catch(() => []);
  for (const problem of problems) {
    if (saidProblems.has(problem)) continue;
    saidProblems.add(problem);
    console.error(`authbroker: ${problem}`);
  }
}

/**
 * Reaches the broker for this tab (`urls`: the handler pages the broker puts in e-mails it asks the
 * service to send; null outside a page), delivering its updates to `deliver`.
 */
export async function connect(
  target: BrokerTarget,
  urls: HandlerUrls | null,
  deliver: (batch: Delivery) => void,
): Promise<Connection> {
  checkBrokerOptions(target);
  warnIfEveryTabAlone(target);
  const tabId = newTabId();
  let channel: BrokerChannel | null = null;
  // The lock is taken while the connection is made (taking it can cost a new tab tens of ms);
  // the broker is told its name once it is held, since a free lock would mean "this tab is gone".
  // A fresh lock, taken after another page took this one, is named to the broker at once. No
  // answer means the broker let this tab go meanwhile (it asked while the tab was busy): connect again.
  let tabLock: string | undefined;
  const lifetimeLock = holdTabLock(tabId, (renewed) => {
    tabLock = renewed;
    const current = channel;
    if (current === null) return;
    void answeredWithin(current.api.watchLifetime(renewed), BROKER_CONFIRM_MILLIS).then((answer) => {
      if (answer === undefined) current.markLost?.();
    });
  });
  const hello: TabHello = {
    tabId,
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
  const opened = await openBroker(target, hello, { deliver });
  channel = opened;
  // Each side watches the other's lifetime lock: the broker learns when this tab is gone, the tab
  // when the broker's worker is (killed, crashed), which nothing else would tell it.
  void lifetimeLock
    .then(async (lockName) => {
      tabLock ??= lockName;
      const brokerLock = tabLock === undefined ? null : await opened.api.watchLifetime(tabLock);
      if (brokerLock === null) return;
      await whenBrokerGone(brokerLock, () => opened.api.watchLifetime(tabLock!));
      opened.markLost?.();
    })
    .catch(() => undefined);
  const stopForwarding = forwardBrowserState(opened.api);
  void sayConfigProblems(opened.api);
  return askingAgainWhenLost(
    {
      mode: opened.mode,
      api: opened.api,
      lost: opened.lost ?? new Promise<void>(() => undefined),
      close(goodbye = false) {
        if (goodbye) void opened.api.goodbye().catch(() => undefined);
        stopForwarding();
        opened.close();
      },
    },
    target.again,
  );
}
