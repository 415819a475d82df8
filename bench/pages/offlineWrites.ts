/**
 * The page side of benchmark 14 (bench/offlineWrites.ts): writes to the bench's API handed to the broker with
 * `client.fetch(…, { queue })`, kept while the service is away; the harness waits for their answers in the page.
 */
import type { BrokerClient } from '../../client/index.js';

/** `?offlineWrites=1`: the broker keeps writes made while the service is away (every tab passes the same options). */
export function offlineWritesOption(): { offlineWrites?: true } {
  return new URLSearchParams(location.search).get('offlineWrites') === '1' ? { offlineWrites: true } : {};
}

/** What the harness calls in the page (`window.__bench.offlineWrites`). */
export function offlineWritesKit(client: BrokerClient) {
  const answers: Array<Promise<number>> = [];

  return {
    /** Hands one PUT to the broker without waiting for its answer (it may wait out an outage). */
    write(url: string, body: string, idempotencyKey: string): void {
      answers.push(
        client
          .fetch(url, { method: 'PUT', body }, { queue: { idempotencyKey } })
          .then(async (response) => {
            await response.arrayBuffer();
            return response.status;
          })
          // A write refused or dropped counts as lost: its status is 0.
          .catch(() => 0),
      );
    },
    /** The statuses of every write this tab made, once all are answered; the list is emptied. */
    async answered(): Promise<number[]> {
      return Promise.all(answers.splice(0));
    },
    /** How many writes the broker keeps (waiting, refused or dropped), as every tab sees them. */
    async pending(): Promise<number> {
      return (await client.read({ kind: 'pendingChanges' })).length;
    },
  };
}
