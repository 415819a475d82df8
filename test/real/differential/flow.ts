import type { AccessType } from '../../../protocol/resources/common.js';
import { createRefreshingTokenSource } from '../../../protocol/tokenSource.js';
import { createTransport, staticTokenSource, type TokenSource, type Transport } from '../../../protocol/transport.js';
import type { MailMessage } from '../../support/serviceTarget.js';
import { Recorder } from './exchange.js';

/** The service one run of the flows talks to, and the project they work in. */
export interface FlowSide {
  name: 'emulator' | 'real';
  baseUrl: string;
  internalPublishableClientKey: string;
  extraRequestHeaders: Readonly<Record<string, string>>;
  mail(to: string): Promise<MailMessage[]>;
}

export interface ProjectKeys {
  projectId: string;
  publishableClientKey: string;
  secretServerKey: string;
  superSecretAdminKey: string;
}

/** The user tokens a step sends: an access token, and a refresh token for the two endpoints that read it. */
export interface Tokens {
  access_token: string;
  refresh_token?: string;
}

/**
 * What a flow works with. Every request goes through the recorder under the label of the step that
 * sends it, and a step never throws: a refused call is an answer like any other, and the flow goes on
 * (what it needed from a failed step is then undefined, and later steps say so in their own answers).
 */
export class FlowContext {
  readonly recorder: Recorder;
  /** Values a flow keeps between steps (ids, codes). */
  readonly vars: Record<string, string> = {};
  private emails = 0;

  constructor(
    readonly side: FlowSide,
    public project: ProjectKeys,
    private readonly flowName: string,
  ) {
    this.recorder = new Recorder(side.extraRequestHeaders);
  }

  /** An e-mail address unique to this run, the same shape on both sides. */
  email(prefix: string): string {
    this.emails += 1;
    return `${prefix}-${this.flowName}-${this.emails}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.com`;
  }

  /** A recording transport of the flow's project (or `internal`). */
  transport<A extends AccessType>(
    accessType: A,
    options: {
      tokens?: Tokens | undefined;
      internal?: boolean;
      adminAccessToken?: string;
      keys?: Partial<ProjectKeys>;
    } = {},
  ): Transport<A> {
    const keys = { ...this.project, ...options.keys };
    const internal = options.internal === true;
    return createTransport({
      baseUrl: this.side.baseUrl,
      projectId: internal ? 'internal' : keys.projectId,
      accessType,
      publishableClientKey: internal ? this.side.internalPublishableClientKey : keys.publishableClientKey,
      secretServerKey: internal ? undefined : keys.secretServerKey,
      superSecretAdminKey: internal
        ? undefined
        : options.adminAccessToken === undefined
          ? keys.superSecretAdminKey
          : undefined,
      adminTokens: options.adminAccessToken === undefined ? undefined : staticTokenSource(options.adminAccessToken),
      userTokens: options.tokens === undefined ? undefined : this.tokenSourceOf(options.tokens),
      fetch: this.recorder.fetch,
      // The real backend compiles a route on its first request (10–60 s on 2 cores).
      attemptTimeoutMillis: 600_000,
      diagnoseFailures: false,
    });
  }

  client(tokens?: Tokens): Transport<'client'> {
    return this.transport('client', { tokens });
  }

  server(tokens?: Tokens): Transport<'server'> {
    return this.transport('server', { tokens });
  }

  admin(tokens?: Tokens): Transport<'admin'> {
    return this.transport('admin', { tokens });
  }

  private renewing = new Map<string, TokenSource>();

  /**
   * A session's tokens as a client holds them: renewed before they expire (the real development
   * backend's last 60 s, and a flow that waits for e-mail outlives that). Renewals go out unrecorded,
   * since the two sides' token lifetimes differ by design; the token endpoint has steps of its own.
   */
  private tokenSourceOf(tokens: Tokens): TokenSource {
    if (tokens.refresh_token === undefined)
      return {
        renewable: false,
        getAccessToken: async () => tokens.access_token,
        invalidateAccessToken: () => undefined,
      };
    const refreshToken = tokens.refresh_token;
    let source = this.renewing.get(refreshToken);
    if (!source) {
      const extra = this.side.extraRequestHeaders;
      source = createRefreshingTokenSource({
        baseUrl: this.side.baseUrl,
        projectId: this.project.projectId,
        publishableClientKey: this.project.publishableClientKey,
        refreshToken,
        accessToken: tokens.access_token,
        fetch: (input, init) => {
          const request = new Request(input, init);
          for (const [name, value] of Object.entries(extra)) request.headers.set(name, value);
          return globalThis.fetch(request);
        },
        attemptTimeoutMillis: 600_000,
      });
      this.renewing.set(refreshToken, source);
    }
    // A session the flow ended (signed out, deleted) keeps its last access token, so the step that
    // uses it afterwards shows the service's answer to that token rather than no token at all.
    let last = tokens.access_token;
    const renewing = source;
    return {
      renewable: true,
      getAccessToken: async () => (last = (await renewing.getAccessToken()) ?? last),
      invalidateAccessToken: (token) => renewing.invalidateAccessToken(token),
      getRefreshToken: async () => refreshToken,
    };
  }

  /** Runs one step under its label; its error is kept (the answer is recorded already). */
  async step<T>(label: string, run: () => Promise<T>): Promise<T | undefined> {
    this.recorder.setLabel(label);
    try {
      return await run();
    } catch {
      return undefined;
    }
  }

  /** A request our client never makes as such (bad headers, other methods), sent as given. */
  async raw(
    label: string,
    request: { method: string; path: string; headers?: Record<string, string>; body?: unknown },
  ): Promise<{ status: number; body: unknown }> {
    this.recorder.setLabel(label);
    const response = await this.recorder.fetch(`${this.side.baseUrl}/api/v1${request.path}`, {
      method: request.method,
      headers: { ...(request.body === undefined ? {} : { 'content-type': 'application/json' }), ...request.headers },
      ...(request.body === undefined
        ? {}
        : { body: typeof request.body === 'string' ? request.body : JSON.stringify(request.body) }),
      redirect: 'manual',
    });
    const text = await response.text();
    try {
      return { status: response.status, body: JSON.parse(text) as unknown };
    } catch {
      return { status: response.status, body: text };
    }
  }

  /** The headers of this project's access type, for `raw`. */
  headers(accessType: AccessType, extra: Record<string, string> = {}): Record<string, string> {
    const key: Record<string, string> =
      accessType === 'client'
        ? { 'x-stack-publishable-client-key': this.project.publishableClientKey }
        : accessType === 'server'
          ? { 'x-stack-secret-server-key': this.project.secretServerKey }
          : { 'x-stack-super-secret-admin-key': this.project.superSecretAdminKey };
    return { 'x-stack-project-id': this.project.projectId, 'x-stack-access-type': accessType, ...key, ...extra };
  }

  /** The newest e-mail to `to` matching `match`, waiting up to 90 s for it (the backend sends from a queue). */
  async mail(to: string, match: RegExp): Promise<MailMessage | undefined> {
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      const found = (await this.side.mail(to)).filter((m) => match.test(m.subject) || match.test(m.text)).at(-1);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return undefined;
  }
}

/** The code a link in an e-mail carries (`?code=…`), or the first such link's. */
export function codeFromMail(message: MailMessage | undefined): string | undefined {
  if (!message) return undefined;
  const text = `${message.text}\n${message.html ?? ''}`;
  const match = /[?&]code=([A-Za-z0-9_-]+)/.exec(text.replace(/&amp;/g, '&'));
  return match?.[1];
}

export interface Flow {
  name: string;
  /** What it covers, for the report. */
  covers: string;
  run(ctx: FlowContext): Promise<void>;
}
