/**
 * Where an extension's background runs, told from its other documents. A module of its own, given
 * the extension's API (`ExtensionApi`, webExtension.ts) rather than looking it up, so that the
 * tab's lazy connection can ask it without sharing a module with the tab's main chunk, which finds
 * that API (see docs/decisions/0031-lazy-chunks-share-nothing.md).
 */

/** What it reads of the extension's API. */
export interface BackgroundReader {
  runtime: { getURL(path: string): string; getManifest?(): { background?: { page?: string; scripts?: string[] } } };
}

/** The page Firefox runs `background.scripts` in (an event page). */
const GENERATED_BACKGROUND_PAGE = '_generated_background_page.html';

/** This document's location when it is on the extension's own origin, else null. */
function ownLocation(extension: BackgroundReader): { pathname?: string } | null {
  const location = (globalThis as { location?: { href?: string; pathname?: string } }).location;
  try {
    return location?.href !== undefined && location.href.startsWith(extension.runtime.getURL('')) ? location : null;
  } catch {
    return null;
  }
}

/**
 * Whether this document is the extension's background page: the manifest's `background.page`, or
 * the one Firefox makes for `background.scripts` (Chromium's background is a service worker, with
 * no document).
 */
export function isBackgroundPage(extension: BackgroundReader): boolean {
  const location = ownLocation(extension);
  if (location === null) return false;
  let background: { page?: string; scripts?: string[] } | undefined;
  try {
    background = extension.runtime.getManifest?.().background;
  } catch {
    return false;
  }
  const page = background?.page ?? (background?.scripts !== undefined ? GENERATED_BACKGROUND_PAGE : undefined);
  return page !== undefined && location.pathname === `/${page.replace(/^\//, '')}`;
}

/**
 * Whether code runs in this extension's background: Chromium's service worker (no document, on the
 * extension's origin), or a background page (Firefox runs `background.scripts` in one it makes).
 */
export function inExtensionBackground(extension: BackgroundReader): boolean {
  if ((globalThis as { document?: unknown }).document === undefined) return ownLocation(extension) !== null;
  return isBackgroundPage(extension);
}
