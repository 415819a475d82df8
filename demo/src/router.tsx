import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent, type ReactNode } from 'react';

/**
 * A tiny router over the History API: real paths (e-mails link to /handler/...), `pushState`
 * for in-app links, `popstate` for back/forward. No hashes.
 */
const NAVIGATE_EVENT = 'demo:navigate';

function subscribe(listener: () => void): () => void {
  window.addEventListener('popstate', listener);
  window.addEventListener(NAVIGATE_EVENT, listener);
  return () => {
    window.removeEventListener('popstate', listener);
    window.removeEventListener(NAVIGATE_EVENT, listener);
  };
}

const currentHref = () => location.pathname + location.search;

export interface Location {
  pathname: string;
  search: URLSearchParams;
  /** pathname + search, for "come back here" links. */
  href: string;
}

let cached: Location | null = null;
function snapshot(): Location {
  const href = currentHref();
  if (cached === null || cached.href !== href)
    cached = { pathname: location.pathname, search: new URLSearchParams(location.search), href };
  return cached;
}

export function useLocation(): Location {
  return useSyncExternalStore(subscribe, snapshot, snapshot);
}

/** Goes to an in-app path (or a full URL of this origin). Other origins get a full page load. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = new URL(to, location.href);
  if (url.origin !== location.origin) {
    if (options.replace) location.replace(url.toString());
    else location.assign(url.toString());
    return;
  }
  const target = url.pathname + url.search + url.hash;
  if (target === currentHref() + location.hash) return;
  if (options.replace) history.replaceState(null, '', target);
  else history.pushState(null, '', target);
  if (!options.replace) window.scrollTo(0, 0);
  window.dispatchEvent(new Event(NAVIGATE_EVENT));
}

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & {
  to: string;
  replace?: boolean;
  children?: ReactNode;
};

/** An `<a>` that navigates in the app; modified clicks (new tab, etc.) keep the browser's behaviour. */
export function Link({ to, replace, onClick, children, ...rest }: LinkProps) {
  const handle = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    )
      return;
    if (rest.target !== undefined && rest.target !== '_self') return;
    event.preventDefault();
    navigate(to, replace === undefined ? {} : { replace });
  };
  return (
    <a href={to} onClick={handle} {...rest}>
      {children}
    </a>
  );
}

/** Matches `/teams/:teamId` against a path; returns the parameters or null. */
export function matchPath(pattern: string, pathname: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  const have = pathname.replace(/\/+$/, '').split('/').filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const h = have[i]!;
    if (w.startsWith(':')) params[w.slice(1)] = decodeURIComponent(h);
    else if (w !== h) return null;
  }
  return params;
}
