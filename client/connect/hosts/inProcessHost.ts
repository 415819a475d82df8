/**
 * The in-page host, the last fallback: this page runs a broker of its own (a bundle of its own,
 * loaded only when the page must host it). Part of the tab's lazy connection.
 */
import type { TabHello, TabListener } from '../../../contract/api.js';
import type { BrokerChannel, BrokerTarget } from '../brokerChannel.js';
import { brokerConfigOf } from '../brokerConfig.js';
import { refusal } from '../rpc.js';

/** Starts the broker in this page and connects to it; a config the broker refuses is its answer, as from a worker. */
export async function openInProcess(
  target: BrokerTarget,
  hello: TabHello,
  listener: TabListener,
): Promise<BrokerChannel> {
  // The whole broker, loaded only when this page must host it itself: a bundle of its own, whose
  // errors come back as the tab's classes (see worker/hosts/inPage.ts).
  const { openInPageBroker } = await import('../../../worker/hosts/inPage.js');
  try {
    return {
      mode: 'in-process',
      ...(await openInPageBroker(
        brokerConfigOf(target),
        hello,
        listener,
        target.errors.deserializeError,
        target.modes.length > 1,
      )),
    };
  } catch (error) {
    // The broker refused this tab's config (an extra header the protocol sets): the answer, as from a worker.
    throw (error as { code?: unknown }).code === 'INVALID_ARGUMENT' ? refusal(error as Error) : error;
  }
}
