/** One request and its answer, reduced to what the differential check compares. */
export interface Exchange {
  /** The step that sent it (a flow names its steps), with `#2`, `#3` for later requests of one step. */
  label: string;
  method: string;
  /** The path under `/api/v1` with ids replaced by `:id` (for the report and the coverage check). */
  route: string;
  status: number;
  /** `x-stack-known-error`, else the body's `code` when it looks like a known-error code. */
  knownError: string | null;
  /** The compared headers (see COMPARED_HEADERS), normalized. */
  headers: Record<string, string>;
  /** Every key path of the JSON body (`a`, `a.b`, `list[]`, `list[].c`), sorted; null when not JSON. */
  bodyKeys: string[] | null;
  /** The body's shape in one word when it is not an object (`text`, `empty`, `array`). */
  bodyKind: 'object' | 'array' | 'text' | 'empty';
}

/**
 * The headers of the protocol, compared by value (normalized), and the two compared by presence only
 * (their values are times). The rest (Next.js's `vary`, `x-powered-by`, dates, request ids) are the
 * frameworks', not the protocol's.
 */
export const COMPARED_HEADERS = [
  'content-type',
  'x-stack-known-error',
  'x-stack-actual-status',
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
] as const;
export const PRESENCE_HEADERS = ['retry-after', 'location'] as const;

const ID_SEGMENT = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{24,}|\d{6,})$/i;

/** `/api/v1/teams/0b…/x` → `/teams/:id/x`; the query is dropped. */
export function routeOf(url: string): string {
  const { pathname } = new URL(url);
  const path = pathname.replace(/^\/api\/v1/, '') || '/';
  return path
    .split('/')
    .map((segment) => (ID_SEGMENT.test(segment) ? ':id' : segment))
    .join('/');
}

function normalizeHeader(name: string, value: string): string {
  if (name === 'content-type') return value.toLowerCase().replace(/\s+/g, '');
  if (name.startsWith('access-control-') && name !== 'access-control-allow-origin') {
    return value
      .split(',')
      .map((v) => v.trim().toLowerCase())
      .filter(Boolean)
      .sort()
      .join(', ');
  }
  return value.trim();
}

/** Every key path of a JSON value; array items are merged under `[]`. */
export function keyPaths(value: unknown, prefix = ''): string[] {
  const out = new Set<string>();
  const walk = (v: unknown, path: string) => {
    if (Array.isArray(v)) {
      const itemPath = `${path}[]`;
      if (path !== '') out.add(itemPath);
      for (const item of v) walk(item, itemPath);
      return;
    }
    if (v === null || typeof v !== 'object') return;
    for (const [key, child] of Object.entries(v)) {
      const childPath = path === '' ? key : `${path}.${key}`;
      out.add(childPath);
      walk(child, childPath);
    }
  };
  walk(value, prefix);
  return [...out].sort();
}

const KNOWN_ERROR_CODE = /^[A-Z][A-Z0-9_]+$/;

export async function exchangeOf(label: string, method: string, url: string, response: Response): Promise<Exchange> {
  const headers: Record<string, string> = {};
  for (const name of COMPARED_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = normalizeHeader(name, value);
  }
  for (const name of PRESENCE_HEADERS) if (response.headers.has(name)) headers[name] = '(present)';
  const text = await response.clone().text();
  let body: unknown = undefined;
  if (text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  const bodyKind: Exchange['bodyKind'] =
    text === '' ? 'empty' : body === undefined ? 'text' : Array.isArray(body) ? 'array' : 'object';
  const code =
    body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as { code?: unknown }).code : undefined;
  const knownError =
    response.headers.get('x-stack-known-error') ??
    (typeof code === 'string' && KNOWN_ERROR_CODE.test(code) ? code : null);
  return {
    label,
    method: method.toUpperCase(),
    route: routeOf(url),
    status: response.status,
    knownError,
    headers,
    bodyKeys: body === undefined ? null : keyPaths(body),
    bodyKind,
  };
}

/** Node's fetch failing because the server closed a kept-alive connection before reading the request. */
function isStaleConnection(error: unknown): boolean {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return cause?.code === 'UND_ERR_SOCKET' || cause?.code === 'ECONNRESET';
}

/**
 * One request, sent again once when the connection it went out on was a kept-alive one that the
 * server had just closed (Next's development server closes idle connections after a few seconds,
 * and undici may pick one in that instant): the server never read it.
 */
async function fetchOnce(request: Request): Promise<Response> {
  const spare = request.clone();
  try {
    return await globalThis.fetch(request);
  } catch (error) {
    if (!isStaleConnection(error)) throw error;
    return globalThis.fetch(spare);
  }
}

/**
 * A `fetch` that records every exchange under the label its owner sets. What it hands back is the
 * real answer, so the client code that reads it behaves as it would.
 */
export class Recorder {
  readonly exchanges: Exchange[] = [];
  private label = '(no step)';
  private perLabel = new Map<string, number>();

  constructor(private readonly extraHeaders: Readonly<Record<string, string>> = {}) {}

  setLabel(label: string): void {
    this.label = label;
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    for (const [name, value] of Object.entries(this.extraHeaders)) request.headers.set(name, value);
    const response = await fetchOnce(request);
    const seen = (this.perLabel.get(this.label) ?? 0) + 1;
    this.perLabel.set(this.label, seen);
    const label = seen === 1 ? this.label : `${this.label} #${seen}`;
    this.exchanges.push(await exchangeOf(label, request.method, request.url, response));
    return response;
  };
}
