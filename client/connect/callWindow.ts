import { MAX_CALLS_IN_FLIGHT } from '../../contract/wire.js';

/**
 * A tab's calls on one port, at most MAX_CALLS_IN_FLIGHT unanswered at once (contract/wire.ts): the
 * broker closes a port with many more waiting, as a page flooding it. A start-up subscribing to a
 * thousand queries, or a thousand reads at once, goes out as answers come back, in order. A call
 * that waits has not been sent: it costs the broker nothing.
 */
export interface CallWindow {
  /**
   * Runs `post` now, or once an earlier call has been answered. `post` returning false, or throwing
   * (only where it runs now, inside `send`: the throw is the caller's), means nothing went out.
   */
  send(id: string, post: () => boolean): void;
  /** The answer to `id` arrived: the next waiting call goes. */
  answered(id: string): void;
}

export function callWindow(max: number = MAX_CALLS_IN_FLIGHT): CallWindow {
  const unanswered = new Set<string>();
  const waiting: Array<{ id: string; post: () => boolean }> = [];
  const pump = () => {
    while (unanswered.size < max && waiting.length > 0) {
      const { id, post } = waiting.shift()!;
      unanswered.add(id);
      let sent = false;
      try {
        sent = post();
      } finally {
        if (!sent) unanswered.delete(id);
      }
    }
  };
  return {
    send(id, post) {
      waiting.push({ id, post });
      pump();
    },
    answered(id) {
      if (unanswered.delete(id)) pump();
    },
  };
}
