/**
 * The page side of benchmark 13 (bench/appFetch.ts): `client.fetch` to the bench's own API next to a plain `fetch`
 * carrying the same token, timed call by call; and a burst of calls from one tab, for the 20-tab row.
 */
import type { BrokerClient } from '../../client/index.js';

/** The options the page adds when the harness gives `?appApi=<origin>`: that origin may receive the user's token. */
export function appRequestsOption(): { appRequests?: { origins: string[] } } {
  const origin = new URLSearchParams(location.search).get('appApi');
  return origin === null ? {} : { appRequests: { origins: [origin] } };
}

type Variant = 'client' | 'plain';

/** What the harness calls in the page (`window.__bench.appFetch`). */
export function appFetchKit(client: BrokerClient) {
  /** One call, its answer read whole (the call is not over before its body is), or an error naming the status. */
  const read = async (response: Response) => {
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`The bench API answered ${response.status}.`);
  };

  /**
   * `rounds` × `perRound` sequential calls of each variant to `url`, interleaved round by round (order alternated) so
   * that machine noise hits both alike, after `warmup` calls of each (the lazy chunk, the connection, the preflight).
   */
  async function overhead(url: string, rounds: number, perRound: number, warmup: number) {
    const token = await client.getAccessToken();
    if (token === null) throw new Error('Nobody is signed in: the bench needs a token.');
    const calls: Record<Variant, () => Promise<void>> = {
      client: async () => read(await client.fetch(url)),
      plain: async () => read(await fetch(url, { headers: { authorization: `Bearer ${token}` } })),
    };
    const samples: Record<Variant, number[]> = { client: [], plain: [] };
    const variants = Object.keys(calls) as Variant[];
    for (const variant of variants) for (let i = 0; i < warmup; i++) await calls[variant]();
    for (let round = 0; round < rounds; round++) {
      for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
        for (let i = 0; i < perRound; i++) {
          const start = performance.now();
          await calls[variant]();
          samples[variant].push(performance.now() - start);
        }
      }
    }
    return { samples, crossOriginIsolated: globalThis.crossOriginIsolated === true };
  }

  /** `count` calls at once from this tab, each named `<tab>-<i>` (`x-call`); their statuses. */
  async function burst(url: string, count: number, tab: number): Promise<number[]> {
    return Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const response = await client.fetch(url, { headers: { 'x-call': `${tab}-${i}` } });
        await response.arrayBuffer();
        return response.status;
      }),
    );
  }

  return { overhead, burst };
}
