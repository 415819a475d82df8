/**
 * A small W3C WebDriver (classic) client over `fetch`, for WebKitGTK's `WebKitWebDriver`: new
 * session, navigate, run a script, windows, delete. Nothing else is needed, and no WebDriver library
 * here drives WebKitGTK without trying to download a driver of its own (BROWSER-NOTES.md).
 *
 * Every request has a deadline: under load the driver now and then never answers one, and a test
 * must fail (or retry) rather than hang.
 */

export class WebDriverError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'WebDriverError';
  }
}

export interface WebDriverRequestOptions {
  /** Milliseconds before the request is abandoned (default 30 s). */
  deadlineMillis?: number;
}

/** One request to the driver: the `value` of its answer, or a WebDriverError naming what failed. */
export async function webDriverRequest<T>(
  baseUrl: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
  options: WebDriverRequestOptions = {},
): Promise<T> {
  const deadlineMillis = options.deadlineMillis ?? 30_000;
  let response: Response;
  try {
    response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(deadlineMillis),
    });
  } catch (error) {
    const timedOut = (error as { name?: string } | null)?.name === 'TimeoutError';
    throw new WebDriverError(
      timedOut
        ? `WebDriver ${method} ${path} got no answer within ${deadlineMillis} ms.`
        : `WebDriver ${method} ${path} failed: ${error instanceof Error ? error.message : String(error)}`,
      timedOut ? 'deadline' : 'network',
    );
  }
  const text = await response.text();
  let parsed: { value?: unknown };
  try {
    parsed = JSON.parse(text) as { value?: unknown };
  } catch {
    throw new WebDriverError(
      `WebDriver ${method} ${path} answered ${response.status} with something that is not JSON: ${text.slice(0, 200)}`,
      'protocol',
    );
  }
  // Errors come with a non-2xx status (a script's own result may well have an `error` field).
  const value = parsed.value as { error?: string; message?: string } | undefined;
  if (!response.ok) {
    throw new WebDriverError(
      `WebDriver ${method} ${path}: ${value?.error ?? response.status}: ${value?.message ?? text.slice(0, 200)}`,
      value?.error ?? String(response.status),
    );
  }
  return parsed.value as T;
}

/** One WebDriver session (one browser process): its windows, navigation and scripts. */
export class WebDriverSession {
  /** The window commands apply to now (WebDriver has one "current" window per session). */
  private current: string | null = null;

  constructor(
    private readonly baseUrl: string,
    readonly id: string,
    /** What the driver says it started (`browserName`, `browserVersion`, …). */
    readonly capabilities: Record<string, unknown>,
    private readonly deadlineMillis: number,
  ) {}

  static async create(
    baseUrl: string,
    capabilities: Record<string, unknown>,
    deadlineMillis = 30_000,
  ): Promise<WebDriverSession> {
    const created = await webDriverRequest<{ sessionId: string; capabilities?: Record<string, unknown> }>(
      baseUrl,
      'POST',
      '/session',
      { capabilities: { alwaysMatch: capabilities } },
      { deadlineMillis },
    );
    return new WebDriverSession(baseUrl, created.sessionId, created.capabilities ?? {}, deadlineMillis);
  }

  private request<T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
    deadlineMillis = this.deadlineMillis,
  ): Promise<T> {
    return webDriverRequest<T>(this.baseUrl, method, `/session/${this.id}${path}`, body, { deadlineMillis });
  }

  async currentWindow(): Promise<string> {
    this.current ??= await this.request<string>('GET', '/window');
    return this.current;
  }

  async switchTo(handle: string): Promise<void> {
    if (this.current === handle) return;
    await this.request('POST', '/window', { handle });
    this.current = handle;
  }

  async newWindow(): Promise<string> {
    const { handle } = await this.request<{ handle: string }>('POST', '/window/new', { type: 'tab' });
    return handle;
  }

  /** Closes the current window; the session has no current window until `switchTo`. */
  async closeWindow(): Promise<string[]> {
    const left = await this.request<string[]>('DELETE', '/window');
    this.current = null;
    return left;
  }

  handles(): Promise<string[]> {
    return this.request<string[]>('GET', '/window/handles');
  }

  /** Navigates the current window; answers once the page has loaded. */
  async navigate(url: string): Promise<void> {
    await this.request('POST', '/url', { url });
  }

  async refresh(): Promise<void> {
    await this.request('POST', '/refresh', {});
  }

  /** Runs `script` as an async script body: `arguments[arguments.length - 1]` is the callback. */
  executeAsync<T>(script: string, args: unknown[], deadlineMillis?: number): Promise<T> {
    return this.request<T>('POST', '/execute/async', { script, args }, deadlineMillis);
  }

  async delete(): Promise<void> {
    await this.request('DELETE', '', undefined, 10_000);
  }
}
