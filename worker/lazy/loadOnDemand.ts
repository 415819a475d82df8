/**
 * One lazy part's loading, shared by every caller: one load at a time, a failure reported as
 * BROKER_UNAVAILABLE naming the part and why (a chunk missing after a deploy, a blip) and tried
 * again on the next use, so a failed load never sticks.
 */
import { ClientError, messageOf } from '../../protocol/errors/errors.js';

export function loadOnDemand<M>(load: () => Promise<M>, part: string): () => Promise<M> {
  let loading: Promise<M> | null = null;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = null;
      throw new ClientError(
        'BROKER_UNAVAILABLE',
        `The broker's ${part} did not load (${messageOf(error)}): serve the worker's chunks beside it.`,
      );
    }));
}
