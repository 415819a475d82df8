import type { Application } from 'typedoc';

/** An anchor as typedoc-vitepress-theme writes a link's (scripts/docs/typedocAnchors.mjs). */
export function linkAnchor(anchor: string): string;
/** A page's HTML anchors (`<a id="…">`) written as links to them are; throws when two would become one. */
export function withLinkAnchors(markdown: string, page: string): string;
/** The TypeDoc plugin. */
export function load(app: Application): void;
