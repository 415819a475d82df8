/**
 * Why a worker script will not run, as far as the page can tell: not found, or not JavaScript (a
 * missing file that the app's server answered with its index page). Null when it looks fine (or
 * cannot be fetched: then registering or starting the worker reports it). Loaded only when a host
 * fails or is checked, never on the common path.
 */
export async function scriptProblem(url: string | URL | null, fix = ''): Promise<string | null> {
  if (url === null) return 'script failed to load or to run (check the browser console and the network panel).';
  let response: Response;
  try {
    response = await fetch(url, { credentials: 'same-origin', cache: 'no-store' });
  } catch {
    return null;
  }
  void response.body?.cancel().catch(() => undefined);
  const type = response.headers.get('content-type') ?? '';
  const then = fix === '' ? '' : ` ${fix}`;
  if (!response.ok) return `script ${String(url)} answered HTTP ${response.status}.${then}`;
  if (!/\b(java|ecma)script\b/i.test(type)) {
    return `script ${String(url)} is not JavaScript (content-type: ${type || 'none'}); a server that answers missing files with the app's page does this.${then}`;
  }
  return null;
}
