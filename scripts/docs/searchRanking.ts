/**
 * The built site's search, asked what a newcomer asks: for each subject of the guides, the guide's
 * page comes first and no reference entry ranks above a guide (issue 40: "SharedWorker" found "The
 * broker and its hosts" fifth, under four reference entries), and the index stays small enough to
 * load at once (it was 1.1 MB). Run at the end of `npm run docs:build` (docs/.vitepress/config.ts)
 * against the very index the browser loads, with the very options it searches with.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** What a search is asked, the page that must answer it, and how high: first, or within the first few. */
export interface Expectation {
  query: string;
  page: string;
  within: number;
}

/**
 * The guides' subjects (their sidebar titles, in the words a reader types), each answered first by
 * its page with no reference entry among the first three; an error code and API names answered by
 * their entries near the top.
 */
export const EXPECTATIONS: readonly Expectation[] = [
  ...(
    [
      ['SharedWorker', '/concepts/broker'],
      ['service worker', '/concepts/broker'],
      ['broker', '/concepts/broker'],
      ['token store', '/concepts/sessions'],
      ['kept copy', '/concepts/kept-copy'],
      ['connectivity', '/concepts/connectivity'],
      ['threat model', '/concepts/threat-model'],
      ['passkeys', '/sign-in/passkeys'],
      ['magic link', '/sign-in/magic-link'],
      ['one-time code', '/sign-in/one-time-code'],
      ['OAuth', '/sign-in/oauth'],
      ['multi-factor', '/sign-in/mfa'],
      ['teams', '/guide/teams'],
      ['permissions', '/guide/permissions'],
      ['API keys', '/guide/api-keys'],
      ['emulator', '/guide/getting-started'],
      ['devtools', '/guide/devtools'],
      ['browser extension', '/guide/browser-extension'],
      ['BROKER_UNAVAILABLE', '/guide/troubleshooting'],
      ['offline writes', '/guide/offline-writes'],
      ['own API', '/guide/own-api'],
      ['payments', '/guide/payments'],
    ] as const
  ).map(([query, page]) => ({ query, page, within: 1 })),
  // Two guides answer "offline": what the broker does then, and the writes that wait it out.
  { query: 'offline', page: '/concepts/connectivity', within: 2 },
  { query: 'useUser', page: '/reference/authbroker/react/functions/useUser', within: 2 },
  { query: 'createBrokerClient', page: '/reference/authbroker/client/functions/createBrokerClient', within: 2 },
  { query: 'signInWithPassword', page: '/reference/authbroker/client/interfaces/BrokerClient', within: 3 },
];

/**
 * The largest index the browser should load at the first search, in bytes. 500,000 when the site had 466 kB of it;
 * the guides of issues 42 and 43 (payments, own and team API keys, providers, invitations, restricted users, CLI login,
 * calling your own API, offline writes) added about a third more text.
 */
export const INDEX_BUDGET_BYTES = 650_000;

/** What of MiniSearch this check uses: the index as the search box loads it. */
interface SearchIndex {
  search(query: string): Array<{ id: string; title: string }>;
}
export interface MiniSearchClass {
  new (options: Record<string, unknown>): SearchIndex & { addAll(documents: object[]): void };
  loadJSON(json: string, options: Record<string, unknown>): SearchIndex;
}

/** The MiniSearch the search box runs: VitePress's own dependency, not one of ours. */
export function miniSearch(): MiniSearchClass {
  const fromVitepress = createRequire(createRequire(import.meta.url).resolve('vitepress/package.json'));
  return fromVitepress('minisearch') as MiniSearchClass;
}

/** The search index of a built site (VitePress's `@localSearchIndexroot` chunk), as the JSON text it holds. */
export async function builtIndex(outDir: string): Promise<{ json: string; bytes: number }> {
  const chunks = join(outDir, 'assets', 'chunks');
  const file = readdirSync(chunks).find((name) => name.startsWith('@localSearchIndexroot'));
  if (file === undefined) throw new Error(`No search index in ${chunks}.`);
  const module = (await import(pathToFileURL(join(chunks, file)).href)) as { default: string };
  return { json: module.default, bytes: readFileSync(join(chunks, file)).length };
}

/** A page's path from a result's id (`/concepts/broker#three-hosts`). */
const pageOf = (id: string) => id.replace(/#.*$/, '');
const isReference = (id: string) => id.startsWith('/reference/');

/** How many of the first results must be guides when a guide is the answer. */
const GUIDES_FIRST = 3;

/**
 * What is wrong with the answers to `expectations`, one line each: the page that must answer does
 * not come high enough, or a reference entry is among the first three when a guide is the answer.
 */
export function rankingProblems(
  json: string,
  searchOptions: Record<string, unknown>,
  expectations: readonly Expectation[],
): string[] {
  // As VitePress's search box loads it (VPLocalSearchBox.vue).
  const index = miniSearch().loadJSON(json, {
    fields: ['title', 'titles', 'text'],
    storeFields: ['title', 'titles'],
    searchOptions,
  });
  const problems: string[] = [];
  for (const { query, page, within } of expectations) {
    const results = index.search(query).slice(0, 8);
    const shown = results.map((result) => result.id).join(', ') || 'nothing';
    const rank = results.findIndex((result) => pageOf(result.id) === page) + 1;
    if (rank === 0 || rank > within)
      problems.push(
        `"${query}": ${page} should be ${within === 1 ? 'first' : `in the first ${within}`}; the results are ${shown}.`,
      );
    const reference = isReference(page)
      ? undefined
      : results.slice(0, GUIDES_FIRST).find((result) => isReference(result.id));
    if (reference !== undefined)
      problems.push(`"${query}": the reference entry ${reference.id} is in the first ${GUIDES_FIRST}: ${shown}.`);
  }
  return problems;
}

/** Throws, listing them, when the built site's search answers a guide's subject badly or its index is too big. */
export async function assertSearchRanksGuidesFirst(
  outDir: string,
  searchOptions: Record<string, unknown>,
): Promise<void> {
  const { json, bytes } = await builtIndex(outDir);
  const problems = rankingProblems(json, searchOptions, EXPECTATIONS);
  if (bytes > INDEX_BUDGET_BYTES)
    problems.push(
      `The search index is ${bytes} bytes; the budget is ${INDEX_BUDGET_BYTES} (it loads at the first search).`,
    );
  if (problems.length > 0)
    throw new Error(
      `The docs' search (its weights are in docs/.vitepress/search.ts, these answers in scripts/docs/searchRanking.ts):\n  ${problems.join('\n  ')}`,
    );
}
