/**
 * Reaching a broker: the hosts in order, best first, each one's failure a warning for the next, a
 * broker's refusal the end. Part of the tab's lazy connection (loaded by `connection.ts` after the
 * first render): what it needs from the main chunk (the error classes, the hosts to try) comes in
 * a `BrokerTarget`, never from an import of a module the main chunk loads.
 */
import type { TabHello, TabListener } from '../../contract/api.js';
import type { BrokerMode } from '../../contract/state.js';
import type { BrokerChannel, BrokerTarget, HostOpener } from './brokerChannel.js';
import { markConnected } from './connectedMark.js';
import { openExtension } from './hosts/extensionHost.js';
import { openInProcess } from './hosts/inProcessHost.js';
import { openServiceWorker } from './hosts/serviceWorkerHost.js';
import { openSharedWorker } from './hosts/sharedWorkerHost.js';
import { isRefusal } from './rpc.js';

/** How each host is opened. */
export const openers: Record<BrokerMode, HostOpener> = {
  'shared-worker': openSharedWorker,
  'service-worker': openServiceWorker,
  'in-process': openInProcess,
  extension: openExtension,
};

/**
 * Reaches a broker in the first host that starts, best first (`candidateModes`). A host that did
 * not start is a warning the broker shows in its status (and the console, once). A broker that
 * answered and refused this tab (`isRefusal`: options that differ from the running broker's) ends
 * it: a weaker host would hide the refusal and split the tabs. A worker that serves as many configs
 * as it may refused nothing of this tab's (any page of the origin can fill the service worker with
 * made-up ones; the app's SharedWorker, named for its config, serves no other): that is a host that
 * did not start, and the next one is tried (attempts.ts). A forced host is the only one tried. Leaves the `authbroker:connected` mark (`performance.getEntriesByName`), whose
 * start time is how long this page took to reach its broker: what devtools and the benchmarks read.
 */
export async function openBroker(target: BrokerTarget, hello: TabHello, listener: TabListener): Promise<BrokerChannel> {
  const failures: string[] = [];
  for (const mode of target.modes) {
    const fallback =
      failures.length === 0
        ? {}
        : {
            warnings: [`The broker runs in ${mode} mode because a better host did not start: ${failures.join('; ')}.`],
          };
    let opened: BrokerChannel;
    try {
      opened = await openers[mode](target, { ...hello, ...fallback }, listener);
    } catch (error) {
      if (isRefusal(error)) throw error;
      failures.push(`${mode}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    if (fallback.warnings) console.warn(`authbroker: ${fallback.warnings[0]}`);
    markConnected({ mode, attempts: opened.attempts ?? 1, fallbacks: failures.length });
    return opened;
  }
  throw new target.errors.ClientError(
    'BROKER_UNAVAILABLE',
    target.forced
      ? `The broker could not start in the ${target.forced} mode you asked for (${failures.join('; ')}).`
      : `No broker could be started (${failures.join('; ')}).`,
  );
}
