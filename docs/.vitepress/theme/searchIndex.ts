import localSearchIndex from '@localSearchIndex';

/**
 * The search box loads its index when first opened and shows nothing until it has: in issue 40 the
 * first query after a page load showed nothing for about 5 s. So the index is loaded as soon as the
 * page is idle, or at once when the reader reaches for the search (pointer, focus, its shortcuts),
 * and until it has arrived the box says it is loading (./searchIndex.css). It is one cached file
 * (its name carries its hash), fetched once per version of the site.
 */
export function preloadSearchIndex(): void {
  const root = document.documentElement;
  root.classList.add('search-index-loading');
  let started = false;
  const load = () => {
    if (started) return;
    started = true;
    Promise.all(Object.values(localSearchIndex).map((loadLocale) => loadLocale())).then(
      () => root.classList.remove('search-index-loading'),
      // The search box makes the same request and says what went wrong; only the notice goes.
      () => root.classList.remove('search-index-loading'),
    );
  };
  if ('requestIdleCallback' in window) requestIdleCallback(load, { timeout: 3000 });
  else setTimeout(load, 1000);
  const reaching = (event: Event) => {
    if (
      event instanceof KeyboardEvent &&
      !(event.key === '/' || (event.key === 'k' && (event.ctrlKey || event.metaKey)))
    )
      return;
    if (
      !(event instanceof KeyboardEvent) &&
      !(event.target instanceof Element && event.target.closest('.VPNavBarSearch'))
    )
      return;
    load();
  };
  for (const type of ['pointerover', 'focusin', 'touchstart', 'keydown'])
    window.addEventListener(type, reaching, { capture: true, passive: true });
}
