/**
 * The built site's internal links, checked to their #anchor: every link to a page of the site must
 * lead to a page, and a link with a # to an element of that page with that id. VitePress itself
 * fails the build on a link to a missing page but never looks at anchors, and TypeDoc's Markdown
 * links to members are rewritten by typedoc-vitepress-theme, so an anchor can go dead between the
 * two (issue 40: 64 "Inherited from" links to `#property-display-name` on pages whose anchor was
 * `#property-display_name`). Run at the end of `npm run docs:build` (docs/.vitepress/config.ts).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** One built page: its URL path as served with clean URLs (`/guide/testing`, `/reference/`) and its HTML. */
export interface BuiltPage {
  path: string;
  html: string;
}

/** A link that leads nowhere: the page it is on and its href as written. */
export interface DeadLink {
  from: string;
  href: string;
  /** Whether the page is missing (`page`) or only the element the # names (`anchor`). */
  missing: 'page' | 'anchor';
}

const ORIGIN = 'http://site.invalid';

/** The URL path a built file is served at: `a/index.html` at `/a/`, `a/b.html` at `/a/b`. */
export function servedPath(file: string): string {
  const path = `/${file.split(sep).join('/')}`;
  return path.endsWith('/index.html') ? path.slice(0, -'index.html'.length) : path.replace(/\.html$/, '');
}

/** Every id (and `<a name>`) in a page, entity-decoded as the browser reads it. */
export function idsOf(html: string): Set<string> {
  const ids = new Set<string>();
  for (const [, , value] of html.matchAll(/\s(?:id|name)=(["'])(.*?)\1/g)) ids.add(decodeEntities(value!));
  return ids;
}

function decodeEntities(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&#x([0-9a-f]+);/gi, (_, code: string) => String.fromCodePoint(parseInt(code, 16)))
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The hrefs of a page's `<a>` elements. */
function hrefsOf(html: string): string[] {
  return [...html.matchAll(/<a\b[^>]*?\shref=(["'])(.*?)\1/g)].map(([, , href]) => decodeEntities(href!));
}

/**
 * The internal links of `pages` that lead to no page, or to no element with the anchor they name.
 * `fileExists` says whether a path that is no page is a file of the site (an image, a download).
 */
export function deadLinks(
  pages: readonly BuiltPage[],
  fileExists: (path: string) => boolean = () => false,
): DeadLink[] {
  const idsByPath = new Map(pages.map((page) => [page.path, idsOf(page.html)]));
  const dead: DeadLink[] = [];
  for (const page of pages) {
    for (const href of new Set(hrefsOf(page.html))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//') || href === '' || href === '#') continue;
      const url = new URL(href, ORIGIN + page.path);
      const target = url.pathname.replace(/\.html$/, '').replace(/\/index$/, '/');
      const ids = idsByPath.get(target);
      if (ids === undefined) {
        if (!fileExists(url.pathname)) dead.push({ from: page.path, href, missing: 'page' });
        continue;
      }
      const anchor = decodeURIComponent(url.hash.slice(1));
      if (anchor !== '' && !ids.has(anchor)) dead.push({ from: page.path, href, missing: 'anchor' });
    }
  }
  return dead;
}

function htmlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return htmlFiles(path);
    return name.endsWith('.html') ? [path] : [];
  });
}

/** The pages of a built site (VitePress's outDir). The 404 page is left out: it is no page one links to. */
export function readSite(outDir: string): BuiltPage[] {
  return htmlFiles(outDir)
    .map((file) => ({ path: servedPath(relative(outDir, file)), html: readFileSync(file, 'utf8') }))
    .filter((page) => page.path !== '/404');
}

/** Throws, listing them, when the built site has a dead internal link or anchor. */
export function assertNoDeadLinks(outDir: string): void {
  const dead = deadLinks(readSite(outDir), (path) => existsSync(join(outDir, decodeURIComponent(path))));
  if (dead.length === 0) return;
  const shown = dead.slice(0, 30).map((link) => `  ${link.from} → ${link.href} (no such ${link.missing})`);
  throw new Error(
    `${dead.length} dead internal link${dead.length === 1 ? '' : 's'} in the built docs:\n${shown.join('\n')}${
      dead.length > shown.length ? `\n  …and ${dead.length - shown.length} more` : ''
    }`,
  );
}

// `tsx scripts/docs/deadAnchors.ts [outDir]`: checks a site already built.
if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  const outDir = process.argv[2] ?? 'docs/.vitepress/dist';
  const dead = deadLinks(readSite(outDir), (path) => existsSync(join(outDir, decodeURIComponent(path))));
  for (const link of dead) console.log(`${link.from} → ${link.href} (no such ${link.missing})`);
  console.log(`${dead.length} dead links (${dead.filter((link) => link.missing === 'anchor').length} anchors).`);
  process.exitCode = dead.length === 0 ? 0 : 1;
}
