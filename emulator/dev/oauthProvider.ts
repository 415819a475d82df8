import { createHash } from 'node:crypto';
import { randomToken, sha256Hex } from '../crypto.js';
import type { EmulatorEnv } from '../env.js';
import type { Router } from '../http/router.js';
import { html, type ApiRequest, type Reply } from '../http/types.js';
import { escape } from './page.js';
import type { MockAccount, ProviderGrant } from './providerGrant.js';

/**
 * The upstream OAuth provider, played by the emulator itself: `/api/v1/auth/oauth/authorize/{p}`
 * sends the browser to `GET /emulator/oauth/{p}/authorize`, a consent page where a person types
 * or picks an account and approves or denies; the form posts back here and we redirect to the
 * service's callback with a provider code (or `error=access_denied`). Codes, tokens and granted
 * scopes live in memory, per running emulator.
 *
 * Driving it without a browser: `POST /emulator/oauth/{provider}/authorize` with a form
 * (`application/x-www-form-urlencoded`) or JSON body holding
 *   - the authorize parameters, copied from the redirect's query: `client_id`, `redirect_uri`,
 *     `state`, `scope`, `code_challenge`, `code_challenge_method`;
 *   - `action`: `approve` (default) or `deny`;
 *   - `email` (required to approve), `display_name` (optional), `email_verified` (`true` by
 *     default; `false` plays a provider that does not vouch for the address).
 * The answer is a 303 to `redirect_uri` with `code` and `state` (or `error`, `error_description`
 * and `state`). The account id is derived from the provider and the e-mail, so the same e-mail
 * is always the same provider account.
 */

export type { MockAccount, ProviderGrant } from './providerGrant.js';

interface PendingCode {
  provider_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  account: MockAccount;
  scopes: string[];
  expires_at_millis: number;
  used: boolean;
}

interface ProviderMemory {
  codes: Map<string, PendingCode>;
  /** Issued access and refresh tokens → their account and scopes. */
  tokens: Map<string, { provider_id: string; account_id: string; scopes: string[]; kind: 'access' | 'refresh' }>;
  /** Accounts seen per provider, newest last, for the consent page's picker. */
  accounts: Map<string, MockAccount[]>;
}

const memories = new WeakMap<EmulatorEnv, ProviderMemory>();

function memoryOf(env: EmulatorEnv): ProviderMemory {
  let memory = memories.get(env);
  if (!memory) {
    memory = { codes: new Map(), tokens: new Map(), accounts: new Map() };
    memories.set(env, memory);
  }
  return memory;
}

const CODE_LIFETIME_MILLIS = 10 * 60 * 1000;
/** Provider access tokens last an hour, like most real providers'. */
export const PROVIDER_TOKEN_LIFETIME_MILLIS = 60 * 60 * 1000;

const providerNames: Record<string, string> = {
  github: 'GitHub',
  google: 'Google',
  microsoft: 'Microsoft',
  spotify: 'Spotify',
  facebook: 'Facebook',
  discord: 'Discord',
  gitlab: 'GitLab',
  bitbucket: 'Bitbucket',
  linkedin: 'LinkedIn',
  apple: 'Apple',
  x: 'X',
};

const defaultScopes: Record<string, string[]> = {
  github: ['user:email'],
  google: ['openid', 'email', 'profile'],
  microsoft: ['openid', 'profile', 'email', 'offline_access', 'User.Read'],
  spotify: ['user-read-email', 'user-read-private'],
};

/** The scopes the service asks every provider for, before any `provider_scope`. */
export function defaultProviderScopes(providerId: string): string[] {
  return defaultScopes[providerId] ?? ['openid', 'email'];
}

export function providerDisplayName(providerId: string): string {
  return providerNames[providerId] ?? providerId;
}

export function accountIdFor(providerId: string, email: string): string {
  return sha256Hex(`${providerId}:${email.trim().toLowerCase()}`).slice(0, 20);
}

/** Where `/auth/oauth/authorize` sends the browser. */
export function mockAuthorizeUrl(
  env: EmulatorEnv,
  providerId: string,
  params: { clientId: string; redirectUri: string; state: string; scopes: string[]; codeChallenge: string },
): string {
  const url = new URL(`${env.baseUrl}/emulator/oauth/${encodeURIComponent(providerId)}/authorize`);
  url.search = new URLSearchParams({
    client_id: params.clientId,
    redirect_uri: params.redirectUri,
    response_type: 'code',
    scope: params.scopes.join(' '),
    state: params.state,
    code_challenge: params.codeChallenge,
    code_challenge_method: 'S256',
    access_type: 'offline',
  }).toString();
  return url.toString();
}

export type ExchangeResult =
  { ok: true; grant: ProviderGrant } | { ok: false; error: 'invalid_grant' | 'invalid_client' };

/** The token request the service makes at callback time; codes are single-use. */
export function exchangeProviderCode(
  env: EmulatorEnv,
  providerId: string,
  code: string,
  request: { clientId: string; redirectUri: string; codeVerifier: string },
): ExchangeResult {
  const memory = memoryOf(env);
  const pending = memory.codes.get(code);
  const now = env.clock.now();
  if (
    !pending ||
    pending.used ||
    pending.expires_at_millis <= now ||
    pending.provider_id !== providerId ||
    pending.redirect_uri !== request.redirectUri
  ) {
    return { ok: false, error: 'invalid_grant' };
  }
  if (pending.client_id !== request.clientId) return { ok: false, error: 'invalid_client' };
  if (
    pending.code_challenge !== '' &&
    createHash('sha256').update(request.codeVerifier).digest('base64url') !== pending.code_challenge
  ) {
    return { ok: false, error: 'invalid_grant' };
  }
  pending.used = true;
  memory.codes.delete(code);
  const refreshToken = `mock_${providerId}_rt_${randomToken(32)}`;
  memory.tokens.set(refreshToken, {
    provider_id: providerId,
    account_id: pending.account.account_id,
    scopes: pending.scopes,
    kind: 'refresh',
  });
  const minted = mintProviderAccessToken(env, providerId, pending.account.account_id, pending.scopes);
  return {
    ok: true,
    grant: {
      account: pending.account,
      access_token: minted.access_token,
      refresh_token: refreshToken,
      scopes: [...pending.scopes],
      expires_at_millis: minted.expires_at_millis,
    },
  };
}

/**
 * A new access token, as a refresh-token grant at the provider would give. The caller has already
 * checked that its stored refresh token covers `scopes`; tokens survive emulator restarts in the
 * state file while this memory does not, so unknown refresh tokens are not refused.
 */
export function mintProviderAccessToken(
  env: EmulatorEnv,
  providerId: string,
  accountId: string,
  scopes: string[],
): { access_token: string; expires_at_millis: number } {
  const accessToken = `mock_${providerId}_at_${randomToken(32)}`;
  const memory = memoryOf(env);
  memory.tokens.set(accessToken, {
    provider_id: providerId,
    account_id: accountId,
    scopes: [...scopes],
    kind: 'access',
  });
  // Bounded: a long-running dev emulator should not grow without end.
  if (memory.tokens.size > 10_000) memory.tokens.delete(memory.tokens.keys().next().value!);
  return { access_token: accessToken, expires_at_millis: env.clock.now() + PROVIDER_TOKEN_LIFETIME_MILLIS };
}

/** What the provider knows about a token it issued (for tests and the dev page). */
export function inspectProviderToken(
  env: EmulatorEnv,
  token: string,
): { provider_id: string; account_id: string; scopes: string[]; kind: 'access' | 'refresh' } | null {
  return memoryOf(env).tokens.get(token) ?? null;
}

type Fields = Record<string, string>;

function fieldsOf(req: ApiRequest): Fields {
  const out: Fields = {};
  const add = (source: unknown) => {
    if (typeof source !== 'object' || source === null) return;
    for (const [key, value] of Object.entries(source))
      if (typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number')
        out[key] = String(value);
  };
  add(req.query);
  add(req.body);
  return out;
}

/** The redirect URI must be the service's callback for this provider (no open redirects). */
function callbackProblem(providerId: string, redirectUri: string | undefined): string | null {
  if (!redirectUri) return 'redirect_uri is missing.';
  try {
    const url = new URL(redirectUri);
    if (
      !/^https?:$/.test(url.protocol) ||
      !/^\/api\/(?:v1|v2beta[1-4])\/auth\/oauth\/callback\/[^/]+$/.test(url.pathname) ||
      !url.pathname.endsWith(`/${providerId}`)
    ) {
      return `redirect_uri must be this emulator's /api/v1/auth/oauth/callback/${providerId}.`;
    }
    return null;
  } catch {
    return 'redirect_uri is not a URL.';
  }
}

function appName(env: EmulatorEnv, state: string | undefined): string {
  for (const p of env.store.projects())
    if (state !== undefined && Object.hasOwn(p.oauth_flows, state)) return p.display_name;
  return 'An application';
}

function page(req: ApiRequest, providerId: string, f: Fields, problem: string | null, status = 200): Reply {
  const name = providerDisplayName(providerId);
  const scopes = (f.scope ?? '').split(/\s+/).filter((s) => s !== '');
  const hidden = ['client_id', 'redirect_uri', 'state', 'scope', 'code_challenge', 'code_challenge_method']
    .map((k) => `<input type="hidden" name="${k}" value="${escape(f[k] ?? '')}">`)
    .join('');
  const known = [...(memoryOf(req.env).accounts.get(providerId) ?? [])].reverse().slice(0, 6);
  const picker = known
    .map(
      (a) =>
        `<form method="post" class="pick">${hidden}<input type="hidden" name="email" value="${escape(a.email)}"><input type="hidden" name="display_name" value="${escape(a.display_name ?? '')}"><input type="hidden" name="email_verified" value="${a.email_verified}"><button name="action" value="approve"><b>${escape(a.display_name ?? a.email)}</b><span>${escape(a.email)}</span></button></form>`,
    )
    .join('');
  const body = `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,"><title>Sign in with ${escape(name)} (emulated)</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;background:#f3f4f6;color:#111827;margin:0;display:grid;place-items:center;min-height:100vh}
main{background:#fff;border-radius:14px;box-shadow:0 8px 30px #0002;padding:28px 30px;width:min(420px,92vw)}
h1{font-size:20px;margin:0 0 4px}.sub{color:#6b7280;margin:0 0 18px}.badge{font-size:11px;background:#eef2ff;color:#4338ca;border-radius:99px;padding:2px 8px;vertical-align:middle}
ul{margin:6px 0 16px;padding-left:20px;color:#374151}label{display:block;font-weight:600;margin:10px 0 4px}
input[type=email],input[type=text]{box-sizing:border-box;width:100%;padding:9px 11px;border:1px solid #d1d5db;border-radius:8px;font:inherit}
.row{display:flex;flex-direction:row-reverse;gap:10px;margin-top:18px}.row button{flex:1;padding:10px;border-radius:8px;border:0;font:inherit;font-weight:600;cursor:pointer}
.approve{background:#111827;color:#fff}.deny{background:#e5e7eb;color:#111827}.check{font-weight:400;display:flex;gap:6px;align-items:center}
.pick button{display:flex;flex-direction:column;align-items:flex-start;width:100%;text-align:left;background:#f9fafb;border:1px solid #e5e7eb;border-radius:8px;padding:8px 12px;margin-bottom:6px;cursor:pointer;font:inherit}
.pick span{color:#6b7280;font-size:13px}.error{background:#fef2f2;color:#991b1b;border-radius:8px;padding:8px 12px}
</style>
<main>
<h1>Sign in with ${escape(name)} <span class="badge">emulated</span></h1>
<p class="sub"><b>${escape(appName(req.env, f.state))}</b> would like to use your ${escape(name)} account.</p>
${problem ? `<p class="error">${escape(problem)}</p>` : ''}
${scopes.length ? `<p>It asks for:</p><ul>${scopes.map((s) => `<li><code>${escape(s)}</code></li>`).join('')}</ul>` : ''}
${picker ? `<p class="sub">Continue as</p>${picker}<p class="sub">or use another account:</p>` : ''}
<form method="post">${hidden}
<label for="email">E-mail</label><input id="email" type="email" name="email" value="${escape(f.email ?? '')}" placeholder="ada@example.com" autofocus>
<label for="display_name">Display name <span class="sub">(optional)</span></label><input id="display_name" type="text" name="display_name" value="${escape(f.display_name ?? '')}" placeholder="Ada Lovelace">
<input type="hidden" name="email_verified" value="false">
<label class="check"><input type="checkbox" name="email_verified" value="true" checked> ${escape(name)} has verified this e-mail</label>
<div class="row"><button class="approve" name="action" value="approve">Approve</button><button class="deny" name="action" value="deny" formnovalidate>Deny</button></div>
</form>
</main></html>`;
  return html(body, status);
}

function seeOther(location: string): Reply {
  return { kind: 'redirect', status: 303, location };
}

function rememberAccount(env: EmulatorEnv, providerId: string, account: MockAccount): void {
  const memory = memoryOf(env);
  const list = (memory.accounts.get(providerId) ?? []).filter((a) => a.account_id !== account.account_id);
  list.push(account);
  memory.accounts.set(providerId, list.slice(-20));
}

export function registerMockOAuthProvider(router: Router): void {
  router.add('GET', '/emulator/oauth/:provider/authorize', (req) => {
    const providerId = req.params.provider!;
    const f = fieldsOf(req);
    const problem = callbackProblem(providerId, f.redirect_uri) ?? (f.state ? null : 'state is missing.');
    return page(req, providerId, f, problem, problem ? 400 : 200);
  });

  router.add(
    'POST',
    '/emulator/oauth/:provider/authorize',
    (req) => {
      const providerId = req.params.provider!;
      const f = fieldsOf(req);
      const problem = callbackProblem(providerId, f.redirect_uri) ?? (f.state ? null : 'state is missing.');
      if (problem) return page(req, providerId, f, problem, 400);
      const target = new URL(f.redirect_uri!);
      if ((f.action ?? 'approve') === 'deny') {
        target.searchParams.set('error', 'access_denied');
        target.searchParams.set('error_description', 'The user denied the request.');
        target.searchParams.set('state', f.state!);
        return seeOther(target.toString());
      }
      const email = (f.email ?? '').trim();
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
        return page(req, providerId, f, 'Type the e-mail of the account to sign in with.', 400);
      // The hidden "false" precedes the checkbox, and the last value of a repeated form field wins.
      const account: MockAccount = {
        account_id: accountIdFor(providerId, email),
        email,
        email_verified: f.email_verified !== 'false',
        display_name: (f.display_name ?? '').trim() || null,
        profile_image_url: null,
      };
      rememberAccount(req.env, providerId, account);
      const code = randomToken(32);
      memoryOf(req.env).codes.set(code, {
        provider_id: providerId,
        client_id: f.client_id ?? '',
        redirect_uri: f.redirect_uri!,
        code_challenge: f.code_challenge ?? '',
        account,
        scopes: (f.scope ?? '').split(/\s+/).filter((s) => s !== ''),
        expires_at_millis: req.env.clock.now() + CODE_LIFETIME_MILLIS,
        used: false,
      });
      target.searchParams.set('code', code);
      target.searchParams.set('state', f.state!);
      return seeOther(target.toString());
    },
    { write: false },
  );
}
