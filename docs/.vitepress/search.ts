import type { DefaultTheme } from 'vitepress';

/**
 * The site's local search (VitePress's MiniSearch index). In issue 40 the index was 1.1 MB, most of
 * it the API reference's parameter tables and signatures, and reference entries outranked the
 * guides for the guides' own subjects ("SharedWorker" found "The broker and its hosts" fifth). So
 * the reference is indexed by its names and prose only, and ranks below the guides unless its entry
 * is named as searched. The ranking is checked against the built index (scripts/docs/searchRanking.ts).
 */

/** Headings of TypeDoc's pages whose sections say nothing a search looks for: dropped with their content. */
const DROPPED_SECTIONS = new Set([
  'Parameters',
  'Returns',
  'Type Parameters',
  'Type Declaration',
  'Type Literal',
  'Index Signature',
  'Extends',
  'Extended by',
  'Implements',
  'Implemented by',
  'Implementation of',
  'Inherited from',
  'Overrides',
  'References',
]);

/** Headings that only group what follows (kept, without the heading). */
const GROUPING_HEADINGS = new Set([
  'Call Signature',
  'Properties',
  'Methods',
  'Accessors',
  'Constructors',
  'Constructor',
  'Enumeration Members',
  'Classes',
  'Interfaces',
  'Type Aliases',
  'Variables',
  'Functions',
  'Namespaces',
  'Modules',
  'Remarks',
  'Example',
  'Examples',
  'See',
  'Throws',
  'Deprecated',
  'Default Value',
]);

/** A table cell as text: no tags, links, code marks or escapes. */
function cellText(cell: string): string {
  return cell
    .replace(/<[^>]+>/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`\\]/g, '')
    .trim()
    .replace(/\?$/, '');
}

/**
 * A reference page as the search indexes it: its headings (a member's own heading stays, so a
 * search leads to it), its prose once (overloads repeat it), and for a table the names in its first
 * column; no code blocks, no parameter or return tables, no "Inherited from" lines. A module's page
 * keeps only its summary: its tables list members that have pages of their own.
 */
export function referenceForSearch(markdown: string, modulePage: boolean): string {
  const out: string[] = [];
  const seen = new Set<string>();
  let paragraph: string[] = [];
  let names: string[] = [];
  // The name of the last heading kept while nothing follows it: VitePress indexes no empty section.
  let bare: string | null = null;
  const push = (text: string) => {
    out.push(text, '');
    bare = null;
  };
  const flush = () => {
    const text = paragraph.join('\n').trim();
    if (text !== '' && !seen.has(text)) {
      seen.add(text);
      push(text);
    }
    paragraph = [];
    if (names.length > 0 && !modulePage) push(names.join(', '));
    names = [];
  };
  const endSection = () => {
    flush();
    if (bare !== null) push(bare);
  };
  // The level of the dropped section being skipped (its subsections go with it), or 0.
  let droppingLevel = 0;
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const heading = /^(#{1,6}) (.+)$/.exec(line);
    if (heading !== null) {
      flush();
      const level = heading[1]!.length;
      if (droppingLevel !== 0 && level > droppingLevel) continue;
      const title = heading[2]!.trim();
      droppingLevel = DROPPED_SECTIONS.has(title) ? level : 0;
      if (droppingLevel === 0 && !GROUPING_HEADINGS.has(title)) {
        if (bare !== null) push(bare);
        out.push(line, '');
        bare = title.replace(/^[\w ]+: /, '').replace(/\\/g, '');
      }
      continue;
    }
    if (droppingLevel !== 0 || /^\*{3,}$/.test(line.trim())) continue;
    if (line.startsWith('|')) {
      const first = cellText(line.split(/(?<!\\)\|/)[1] ?? '');
      // The header row and the |---| row name no member.
      if (
        first !== '' &&
        !/^-+$/.test(first) &&
        !/^(Property|Parameter|Name|Module|Member|Enumeration Member)$/.test(first)
      )
        names.push(first);
      continue;
    }
    if (line.trim() === '') {
      flush();
      continue;
    }
    paragraph.push(line);
  }
  endSection();
  return out.join('\n');
}

/** The search's options: passed to the browser as they are (VitePress serializes the functions in them). */
export const searchOptions: DefaultTheme.LocalSearchOptions = {
  miniSearch: {
    searchOptions: {
      fuzzy: 0.2,
      prefix: true,
      boost: { title: 4, text: 2, titles: 1 },
      // Self-contained: VitePress sends it to the browser as source text. A reference entry ranks
      // far below the guides, or somewhat below when the matched word is its name ("useUser"; a
      // word the reader is still typing matches as a prefix, so "connectivity" also names
      // ConnectivityChange, hence not as high as a guide); a section whose title has the word
      // ranks first; the troubleshooting page's 125 codes rank below the pages on a subject.
      boostDocument: (id: string, term: string, stored?: Record<string, unknown>) => {
        const title = String(stored?.title ?? '');
        if (id.startsWith('/reference/')) {
          const name = title
            .replace(/^[\w ]+: /, '')
            .replace(/[(<&].*$/, '')
            .toLowerCase();
          return name === term ? 0.45 : 0.1;
        }
        const named = title.toLowerCase().includes(term) ? 2 : 1;
        return id.startsWith('/guide/troubleshooting') ? 0.7 * named : named;
      },
    },
  },
  async _render(src, env, md) {
    const html = env.relativePath.startsWith('reference/')
      ? md.render(referenceForSearch(src, env.relativePath.endsWith('index.md')), env)
      : md.render(src, env);
    return env.frontmatter?.search === false ? '' : html;
  },
};
