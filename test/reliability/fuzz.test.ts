import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../emulator/index.js';
import { endpoints } from '../../protocol/index.js';
import { AuthBrokerError, HttpStatusError, NetworkError, ProtocolError } from '../../protocol/errors/errors.js';
import type { Broker } from '../../worker/broker.js';
import { signUp, userTransport } from '../support/authFlows.js';
import { resetIndexedDb, startTestBroker } from '../support/broker.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';
import { authorizeUrl } from '../support/oauth.js';
import { connectTab, type SimulatedTab } from '../support/tabs.js';
import {
  applyHeaders,
  bodyBytes,
  bodyPlan,
  contentType,
  headerPlan,
  nastyString,
  percent,
  send,
  toTree,
  type JNode,
  type RawResponse,
} from './fuzzInputs.js';
import { tally, writeReport } from './report.js';
import { RPC_TEMPLATES, rpcArguments } from './rpcInputs.js';

const emulator = useEmulator({ unknownEmailDelayMillis: 0 });
const APP = 'http://localhost:5173';
const SEED = 4242;
/** `FUZZ_SCALE=10 npx vitest run test/reliability/fuzz.test.ts` for a longer hunt. */
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
const report: Record<string, unknown> = {
  seed: SEED,
};
afterAll(() => void writeReport('fuzz', report));

interface Target {
  name: string;
  method: string;
  /** The path after `/api/v1`, from three path segments (null: the valid one). */
  path: (segments: Array<string | null>) => string;
  headers: Array<[string, string]>;
  body: JNode | null;
  query: Array<[string, string]>;
  runs: number;
  /** The token endpoint answers RFC 6749 error bodies (JSON, no known error) for missing parameters. */
  oauthErrors?: boolean;
  redirects?: boolean;
}

/** What every answer to bad input must look like; returns what is wrong with this one. */
function problems(target: Target, res: RawResponse): string[] {
  const out: string[] = [];
  const header = (name: string) =>
    Array.isArray(res.headers[name]) ? (res.headers[name] as string[])[0] : (res.headers[name] as string | undefined);
  if (res.status >= 500) out.push(`status ${res.status}`);
  // A path ending in a slash (an empty last segment) is sent to the same path without it, as the service does.
  const slashRedirect =
    res.status === 308 && header('location') !== undefined && !/\/(?:\?|$)/.test(header('location')!);
  if (res.status >= 300 && res.status < 400 && !target.redirects && !slashRedirect) out.push(`redirect ${res.status}`);
  if (/\n\s+at\s|node:internal|node_modules|\/work\/|file:\/\/|\.[cm]?[jt]s:\d+/.test(res.text))
    out.push('a stack trace or a file path in the body');
  // Node's HTTP parser refuses a request line and headers over 16 KB before the emulator sees it.
  if (res.status === 431 && res.text === '') return out;
  if (res.status >= 400) {
    const known = header('x-stack-known-error');
    const type = header('content-type') ?? '';
    let body: Record<string, unknown> | undefined;
    try {
      body = JSON.parse(res.text) as Record<string, unknown>;
    } catch {
      body = undefined;
    }
    if (known !== undefined) {
      if (body?.code !== known) out.push(`x-stack-known-error ${known} but body code ${String(body?.code)}`);
    } else if (
      !type.startsWith('text/plain') &&
      !(
        target.oauthErrors &&
        type.startsWith('application/json') &&
        typeof body?.error === 'string' &&
        body.code === undefined
      )
    ) {
      out.push(`a ${res.status} that is neither a known error nor plain text (${type})`);
    }
  }
  return out;
}

/** A counterexample short enough to read: long repetitions are counted, not printed. */
function shorten(text: string): string {
  return text
    .replace(/([\s\S]{1,12}?)\1{9,}/gu, (run, unit: string) => `${unit}…×${run.length / unit.length}`)
    .slice(0, 1500);
}

/** Invariants of the emulator's state that no request may break. */
function storeProblems(em: RunningEmulator): string[] {
  const out: string[] = [];
  for (const p of em.env.store.projects()) {
    const channels = Object.values(p.contact_channels);
    const primaries = new Map<string, number>();
    for (const c of channels.filter((c) => c.is_primary)) primaries.set(c.user_id, (primaries.get(c.user_id) ?? 0) + 1);
    for (const [user, n] of primaries) if (n > 1) out.push(`${p.id}: user ${user} has ${n} primary channels`);
    const auth = channels.filter((c) => c.used_for_auth).map((c) => c.value.toLowerCase());
    if (new Set(auth).size !== auth.length) out.push(`${p.id}: two auth-enabled channels share a value`);
    for (const c of channels)
      if (p.users[c.user_id] === undefined) out.push(`${p.id}: channel ${c.id} of a missing user`);
    const memberships = p.memberships.map((m) => `${m.team_id}|${m.user_id}`);
    if (new Set(memberships).size !== memberships.length) out.push(`${p.id}: duplicate membership`);
    const grants = p.permission_grants.map((g) => `${g.team_id}|${g.user_id}|${g.permission_id}`);
    if (new Set(grants).size !== grants.length) out.push(`${p.id}: duplicate permission grant`);
  }
  return out;
}

const PROTOTYPE_KEYS = Object.getOwnPropertyNames(Object.prototype).sort().join();
function polluted(): string[] {
  const probe = {} as Record<string, unknown>;
  const out: string[] = [];
  if (probe.polluted !== undefined || probe.isAdmin !== undefined) out.push('Object.prototype polluted');
  if (Object.getOwnPropertyNames(Object.prototype).sort().join() !== PROTOTYPE_KEYS)
    out.push('Object.prototype gained keys');
  return out;
}

const queryPlan = fc.array(
  fc.record({
    op: fc.constantFrom('replace', 'delete', 'extra', 'duplicate', 'raw'),
    at: fc.nat(),
    key: fc.oneof(
      fc.constantFrom('__proto__', 'constructor', 'prototype', 'client_id', 'state', 'user_id'),
      nastyString,
    ),
    value: nastyString,
  }),
  { maxLength: 3 },
);
type QueryPlan = typeof queryPlan extends fc.Arbitrary<infer T> ? T : never;

function queryString(base: Array<[string, string]>, plans: QueryPlan): string {
  const pairs = [...base];
  const raw: string[] = [];
  for (const plan of plans) {
    const i = plan.at % Math.max(1, pairs.length);
    if (plan.op === 'replace' && pairs[i]) pairs[i] = [pairs[i]![0], plan.value];
    if (plan.op === 'delete') pairs.splice(i, 1);
    if (plan.op === 'extra') pairs.push([plan.key, plan.value]);
    if (plan.op === 'duplicate' && pairs[i]) pairs.push([pairs[i]![0], plan.value]);
    // Malformed percent-encoding and invalid UTF-8, as a hand-written URL could have.
    if (plan.op === 'raw') raw.push(['%ZZ=%FF%FE', '%E0%A4%A=1', `${percent(plan.key)}`, '=&&='][plan.at % 4]!);
  }
  const text = [...pairs.map(([k, v]) => `${percent(k)}=${percent(v)}`), ...raw].join('&');
  return text === '' ? '' : `?${text}`;
}

const segment = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: nastyString.filter((s) => s.length < 300) },
);
const input = fc.record({
  body: bodyPlan,
  type: contentType,
  headers: headerPlan,
  query: queryPlan,
  segments: fc.array(segment, { minLength: 3, maxLength: 3 }),
});

describe('the emulator at its HTTP boundary', () => {
  it('malformed, oversized, mistyped and polluting requests to ten endpoints: a 4xx known or plain error, never a 500 or a trace; the emulator and its state intact', async () => {
    const em = emulator();
    const user = await signUp(em);
    const client = userTransport(em, user);
    const team = await endpoints.createTeam(client, { display_name: 'fuzz team', creator_user_id: 'me' });
    const channel = await endpoints.createContactChannel(client, {
      user_id: 'me',
      type: 'email',
      value: uniqueEmail('fuzz'),
      used_for_auth: false,
    });
    const { demo } = em.projects;
    const clientHeaders: Array<[string, string]> = [
      ['x-stack-project-id', demo.id],
      ['x-stack-access-type', 'client'],
      ['x-stack-publishable-client-key', demo.publishableClientKey],
    ];
    const userHeaders: Array<[string, string]> = [...clientHeaders, ['x-stack-access-token', user.access_token]];
    const serverHeaders: Array<[string, string]> = [
      ['x-stack-project-id', demo.id],
      ['x-stack-access-type', 'server'],
      ['x-stack-secret-server-key', demo.secretServerKey],
    ];
    const authorize = new URL((await authorizeUrl(em)).url);
    const fixed = (path: string) => () => path;
    const targets: Target[] = [
      {
        name: 'sign-up',
        method: 'POST',
        path: fixed('/auth/password/sign-up'),
        headers: clientHeaders,
        body: toTree({
          email: 'demo@authbroker.dev',
          password: 'long-enough-password',
          verification_callback_url: `${APP}/v`,
        }),
        query: [],
        runs: 80,
      },
      {
        name: 'sign-in',
        method: 'POST',
        path: fixed('/auth/password/sign-in'),
        headers: clientHeaders,
        body: toTree({ email: 'demo@authbroker.dev', password: 'not-the-password' }),
        query: [],
        runs: 80,
      },
      {
        name: 'PATCH /users/me',
        method: 'PATCH',
        path: fixed('/users/me'),
        headers: userHeaders,
        body: toTree({ display_name: 'Fuzzed', client_metadata: { a: [1, { b: 2 }] }, selected_team_id: team.id }),
        query: [],
        runs: 150,
      },
      {
        name: 'POST /teams',
        method: 'POST',
        path: fixed('/teams'),
        headers: userHeaders,
        body: toTree({ display_name: 'fuzz', creator_user_id: 'me', client_metadata: { x: 1 } }),
        query: [],
        runs: 120,
      },
      {
        name: 'POST /contact-channels',
        method: 'POST',
        path: fixed('/contact-channels'),
        headers: userHeaders,
        body: toTree({
          user_id: 'me',
          type: 'email',
          value: 'fuzz-channel@example.com',
          used_for_auth: true,
          is_primary: true,
        }),
        query: [],
        runs: 150,
      },
      {
        name: 'PATCH /contact-channels/me/{id}',
        method: 'PATCH',
        path: (s) => `/contact-channels/${percent(s[0] ?? 'me')}/${percent(s[1] ?? channel.id)}`,
        headers: userHeaders,
        body: toTree({ value: 'fuzz-patched@example.com', used_for_auth: true, is_primary: true }),
        query: [],
        runs: 120,
      },
      {
        name: 'POST /team-permissions/{team}/{user}/{permission}',
        method: 'POST',
        path: (s) =>
          `/team-permissions/${percent(s[0] ?? team.id)}/${percent(s[1] ?? user.user_id)}/${percent(s[2] ?? 'member')}`,
        headers: serverHeaders,
        body: toTree({}),
        query: [],
        runs: 120,
      },
      {
        name: 'GET /team-permissions',
        method: 'GET',
        path: fixed('/team-permissions'),
        headers: userHeaders,
        body: null,
        query: [
          ['team_id', team.id],
          ['user_id', 'me'],
          ['recursive', 'true'],
        ],
        runs: 100,
      },
      {
        name: 'POST /auth/oauth/token',
        method: 'POST',
        path: fixed('/auth/oauth/token'),
        headers: [],
        body: toTree({
          grant_type: 'refresh_token',
          refresh_token: user.refresh_token.replace(/.$/, 'x'),
          client_id: demo.id,
          client_secret: demo.publishableClientKey,
        }),
        query: [],
        runs: 150,
        oauthErrors: true,
      },
      {
        name: 'GET /auth/oauth/authorize/{provider}',
        method: 'GET',
        path: (s) => `/auth/oauth/authorize/${percent(s[0] ?? 'github')}`,
        headers: [],
        body: null,
        query: [...authorize.searchParams.entries()],
        runs: 150,
        redirects: true,
      },
    ];

    const inputs: Record<string, number> = {};
    const statuses: Record<string, Record<string, number>> = {};
    const failures: Array<{ target: string; input: string; problems: string[] }> = [];
    const millis: Record<string, number> = {};
    for (const target of targets) {
      const began = performance.now();
      await fc.assert(
        fc.asyncProperty(input, async ({ body, type, headers, query, segments }) => {
          tally(inputs, target.name);
          const bytes =
            target.body === null
              ? body.kind === 'none'
                ? null
                : bodyBytes(body, toTree({}))
              : bodyBytes(body, target.body);
          const lines = applyHeaders(
            [
              ...target.headers,
              ...(type === null || bytes === null ? [] : [['content-type', type] as [string, string]]),
            ],
            headers,
          );
          const res = await send(
            em.url,
            target.method,
            `/api/v1${target.path(segments)}${queryString(target.query, query)}`,
            lines,
            bytes,
          );
          tally((statuses[target.name] ??= {}), String(res.status));
          const health = await fetch(`${em.url}/health`);
          const seen = [
            ...problems(target, res),
            ...(health.status === 200 ? [] : [`/health answered ${health.status}`]),
            ...storeProblems(em),
            ...polluted(),
          ];
          // Every run goes on (no shrinking): the report lists each kind of failure with its first input.
          if (seen.length > 0 && failures.filter((f) => f.target === target.name).length < 5) {
            failures.push({
              target: target.name,
              input: shorten(fc.stringify({ body, type, headers, query, segments })),
              problems: [...seen, `answer: ${res.status} ${shorten(res.text)}`],
            });
          }
          return true;
        }),
        { numRuns: target.runs * SCALE, seed: SEED },
      );
      millis[target.name] = Math.round(performance.now() - began);
    }
    report.http = { inputsTried: inputs, millis, statuses, failures: failures.length, counterexamples: failures };
    expect(failures).toEqual([]);
    expect(Object.values(inputs).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1200);
    // The fuzz did reach the handlers: some inputs were refused by the schema, some by the body parser.
    const all = Object.values(statuses).flatMap((s) => Object.entries(s));
    for (const status of ['400', '413'])
      expect(
        all.some(([s]) => s === status),
        status,
      ).toBe(true);
  }, 300_000);
});

let broker: Broker | undefined;
let tab: SimulatedTab | undefined;
afterAll(() => {
  tab?.close();
  broker?.close();
});

/** Typed answers to bad input: refused by the broker, or by the service with a known error or a 4xx. */
function untyped(error: unknown): string | null {
  if (!(error instanceof AuthBrokerError)) return `untyped ${(error as Error)?.name}: ${(error as Error)?.message}`;
  if (error instanceof ProtocolError || error instanceof NetworkError) return `${error.name}: ${error.message}`;
  if (error instanceof HttpStatusError && error.status >= 500)
    return `HTTP ${error.status}: ${error.body.slice(0, 200)}`;
  return null;
}

describe('the broker at its RPC boundary', () => {
  it('random and mutated arguments to every BrokerApi method through a tab: typed errors only, the session and subscriptions unchanged, the next call works', async () => {
    const em = emulator();
    await resetIndexedDb();
    const { broker: started, locks } = await startTestBroker(em);
    broker = started;
    tab = await connectTab(started, locks);
    const signedUp = await tab.api.signUpWithPassword({
      email: uniqueEmail('rpcfuzz'),
      password: 'rpc-fuzz-password',
      verificationCallbackUrl: `${APP}/v`,
    });
    await tab.subscribe('session', { kind: 'session' });
    await tab.subscribe('user', { kind: 'currentUser' });
    const before = started.status();
    const sessionKey = started.parts.session.sessionKey;
    expect(before.session).toEqual({ status: 'signed-in', userId: (signedUp as { userId: string }).userId });

    const inputs: Record<string, number> = {};
    const outcomes: Record<string, Record<string, number>> = {};
    const failures: Array<{ method: string; input: string; problem: string }> = [];
    for (const [method, template] of Object.entries(RPC_TEMPLATES)) {
      await fc.assert(
        fc.asyncProperty(rpcArguments(method, template), async (args) => {
          tally(inputs, method);
          const call = (tab!.api as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]!;
          let outcome = 'ok';
          let problem = '';
          try {
            await call(...args);
          } catch (error) {
            outcome = (error as { code?: string }).code ?? 'untyped';
            problem = untyped(error) ?? '';
          }
          tally((outcomes[method] ??= {}), outcome);
          // A valid subscription a fuzz happened to make is not a bad input: put it back.
          if (method === 'subscribe' && outcome === 'ok' && typeof args[0] === 'string')
            await tab!.api.unsubscribe(args[0]);
          if (method === 'reportBrowserState') await restoreOnline();
          const now = started.status();
          if (
            JSON.stringify(now.session) !== JSON.stringify(before.session) ||
            started.parts.session.sessionKey !== sessionKey
          )
            problem ||= `session changed to ${JSON.stringify(now.session)}`;
          else if (now.subscriptions !== before.subscriptions)
            problem ||= `subscriptions ${before.subscriptions} → ${now.subscriptions}`;
          else problem ||= polluted().join('; ');
          if (problem !== '' && failures.filter((f) => f.method === method).length < 3 * SCALE)
            failures.push({ method, input: shorten(fc.stringify(args)), problem });
          return true;
        }),
        { numRuns: 25 * SCALE, seed: SEED },
      );
      // Still serving: a valid call goes through and sees the same user.
      expect(await tab.api.getAccessToken(), method).toMatch(/^ey/);
      await tab.api.refetch({ kind: 'currentUser' });
      expect((await tab.api.read({ kind: 'currentUser' }))?.id, method).toBe(
        before.session.status === 'signed-in' ? before.session.userId : '',
      );
    }
    report.rpc = {
      methods: Object.keys(RPC_TEMPLATES).length,
      inputsTried: inputs,
      outcomes,
      failures: failures.length,
      counterexamples: failures,
    };
    expect(failures).toEqual([]);
    expect(Object.keys(inputs).length).toBe(Object.keys(RPC_TEMPLATES).length);

    /** A fuzzed `{ online: false }` is a valid input: report the browser online again and wait for the probe. */
    async function restoreOnline(): Promise<void> {
      await tab!.api.reportBrowserState({ online: true });
      for (let i = 0; i < 400 && started.status().connectivity.state === 'offline'; i++)
        await new Promise((resolve) => setTimeout(resolve, 5));
      expect(started.status().connectivity.state).not.toBe('offline');
    }
  }, 100_000);
});
