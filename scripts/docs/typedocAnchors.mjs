// A TypeDoc plugin (typedoc.config.mjs) for the API reference's anchors. typedoc-plugin-markdown
// marks each property of a table with `<a id="property-display_name">`, and typedoc-vitepress-theme
// rewrites every link's #anchor the way VitePress writes heading ids (`#property-display-name`),
// so a link to a snake_case property (every "Inherited from" of one) led nowhere: 64 dead anchors
// in issue 40. This writes the ids the way the links are written. The built site's links are
// checked to their anchors at the end of `npm run docs:build` (scripts/docs/deadAnchors.ts).
import { MarkdownPageEvent } from 'typedoc-plugin-markdown';

/**
 * An anchor as typedoc-vitepress-theme writes a link's (its `slugifyAnchor`): accents and control
 * characters dropped, every run of white space and punctuation (`_` too) one `-`, none at either end,
 * a leading digit prefixed with `_`, lower case.
 * @param {string} anchor
 * @returns {string}
 */
export function linkAnchor(anchor) {
  return anchor
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[\u0000-\u001f]/g, '')
    .replace(/[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'“”‘’<>,.?/]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '')
    .replace(/^(\d)/, '_$1')
    .toLowerCase();
}

/**
 * A page's HTML anchors (`<a id="…">`) written as links to them are. Two anchors that would become
 * one are an error: a link could then reach only one of them.
 * @param {string} markdown
 * @param {string} page the page's file, for the error
 * @returns {string}
 */
export function withLinkAnchors(markdown, page) {
  /** @type {Map<string, string>} */
  const seen = new Map();
  return markdown.replace(/<a id="([^"]*)"><\/a>/g, (_, /** @type {string} */ id) => {
    const anchor = linkAnchor(id);
    const before = seen.get(anchor);
    if (before !== undefined && before !== id)
      throw new Error(`${page}: the anchors "${before}" and "${id}" would both be #${anchor}.`);
    seen.set(anchor, id);
    return `<a id="${anchor}"></a>`;
  });
}

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.renderer.on(MarkdownPageEvent.END, (/** @type {MarkdownPageEvent} */ page) => {
    if (page.contents !== undefined) page.contents = withLinkAnchors(page.contents, page.filename);
  });
}
