import { normalizeBaseUrl } from './credentials.js';
import { messageOf, NetworkError, type NetworkDiagnostics, type ProbeResult } from './errors/errors.js';

/** The options of {@link diagnoseNetwork}. */
export interface DiagnoseOptions {
  /** The service's base URL: only its own origin is probed. */
  baseUrl: string;
  /** The `fetch` to probe with (default: the global one). */
  fetch?: typeof fetch;
  /** Overrides `navigator.onLine`, e.g. with what the broker learned from its tabs. */
  navigatorOnline?: boolean | null;
  /** Per probe; default 5000 ms. */
  timeoutMillis?: number;
  /** The clock (default `Date.now`). */
  now?: () => number;
}

/** `navigator.onLine` where the runtime has it, else null. */
export function readNavigatorOnline(): boolean | null {
  const nav = (globalThis as { navigator?: { onLine?: unknown } }).navigator;
  return typeof nav?.onLine === 'boolean' ? nav.onLine : null;
}

// Lives with the credentials rules, which the tab loads without the probes below.
export { normalizeBaseUrl as trimBaseUrl } from './credentials.js';

async function probe(
  url: string,
  fetchFn: typeof fetch,
  timeoutMillis: number,
  now: () => number,
): Promise<ProbeResult> {
  const started = now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMillis);
  try {
    const response = await fetchFn(url, {
      method: 'GET',
      credentials: 'omit',
      cache: 'no-store',
      signal: controller.signal,
    });
    // Drain the body so the connection can be reused; the content does not matter.
    await response.arrayBuffer().catch(() => undefined);
    return { url, status: response.status, reachable: true, error: null, elapsedMillis: now() - started };
  } catch (error) {
    const message = controller.signal.aborted ? `no answer within ${timeoutMillis} ms` : messageOf(error);
    return { url, status: null, reachable: false, error: message, elapsedMillis: now() - started };
  } finally {
    clearTimeout(timer);
  }
}

/** Probes the API root alone: the lightest word from the service that says it answers. */
export function probeApiRoot(options: Omit<DiagnoseOptions, 'navigatorOnline'>): Promise<ProbeResult> {
  const now = options.now ?? Date.now;
  const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
  return probe(`${normalizeBaseUrl(options.baseUrl)}/api/v1`, fetchFn, options.timeoutMillis ?? 5000, now);
}

/** Probes the API root and the health endpoint in parallel. */
export async function diagnoseNetwork(options: DiagnoseOptions): Promise<NetworkDiagnostics> {
  const base = normalizeBaseUrl(options.baseUrl);
  const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
  const now = options.now ?? Date.now;
  const timeout = options.timeoutMillis ?? 5000;
  const [apiRoot, health] = await Promise.all([
    probe(`${base}/api/v1`, fetchFn, timeout, now),
    probe(`${base}/health`, fetchFn, timeout, now),
  ]);
  return {
    navigatorOnline: options.navigatorOnline === undefined ? readNavigatorOnline() : options.navigatorOnline,
    apiRoot,
    health,
    checkedAtMillis: now(),
  };
}

/** What {@link networkErrorAfterFailure} needs to say why a request could not get through. */
export interface NetworkFailureContext {
  baseUrl: string;
  cause: unknown;
  attempts: number;
  /** The `fetch` to probe with. */
  fetch: typeof fetch;
  navigatorOnline: boolean | null;
  /** The clock. */
  now: () => number;
  /** Skip the probes (they are only context). Default false. */
  skipProbes?: boolean;
}

/** Whether a base URL is on this machine: a stopped dev server (the emulator, say) is the likely cause then. */
function onThisMachine(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname;
    return host === 'localhost' || host.endsWith('.localhost') || host === '127.0.0.1' || host === '[::1]';
  } catch {
    return false;
  }
}

/**
 * Why the service did not answer, for the people who run it: which URL, whether its origin answers at all, and,
 * for one on this machine, how to start authbroker's emulator. The device being offline is another sentence
 * (`networkErrorAfterFailure`).
 */
export function serviceUnreachableMessage(
  baseUrl: string,
  diagnostics: NetworkDiagnostics | null,
  detail = '',
): string {
  const base = normalizeBaseUrl(baseUrl);
  const sentence =
    diagnostics?.health.reachable === true
      ? `The service at ${base} answers its health check, but its API does not answer${detail}.`
      : `The service at ${base} could not be reached${detail}.`;
  return onThisMachine(base)
    ? `${sentence} Is it running? For authbroker's emulator: npx authbroker-emulator (npm start in the authbroker repository).`
    : sentence;
}

/** The error for a call that never got an answer: offline when the runtime says so, else unreachable. */
export async function networkErrorAfterFailure(context: NetworkFailureContext): Promise<NetworkError> {
  const { navigatorOnline, cause, attempts, baseUrl } = context;
  let diagnostics: NetworkDiagnostics | null = null;
  if (context.skipProbes !== true && navigatorOnline !== false) {
    diagnostics = await diagnoseNetwork({ baseUrl, fetch: context.fetch, navigatorOnline, now: context.now });
  }
  if (navigatorOnline === false) {
    return new NetworkError(
      'NETWORK_OFFLINE',
      'You appear to be offline: the request could not be sent.',
      diagnostics,
      attempts,
      { cause },
    );
  }
  const detail = cause instanceof Error && cause.message !== '' ? ` (${cause.message})` : '';
  const message = serviceUnreachableMessage(baseUrl, diagnostics, detail);
  return new NetworkError('NETWORK_UNREACHABLE', message, diagnostics, attempts, { cause });
}
