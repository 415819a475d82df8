import type { EmulatorEnv } from '../env.js';
import type { FaultEffect, FaultRule } from '../faults.js';
import type { Router } from '../http/router.js';
import { html, type Reply } from '../http/types.js';
import type { MailboxItem } from '../mailbox.js';
import type { ProjectRecord, UserRecord } from '../state/model.js';
import { primaryChannel } from '../state/users.js';

const MAX_USERS = 50;
const MAX_MAIL = 50;
const KEY_PREFIX = {
  publishable_client_key: 'pck_',
  secret_server_key: 'ssk_',
  super_secret_admin_key: 'sak_',
} as const;

export function escape(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Only web links become clickable: a `javascript:` URL in a callback must stay inert text. */
function link(url: string): string {
  return /^https?:\/\//i.test(url) ? `<a href="${escape(url)}">${escape(url)}</a>` : escape(url);
}

const time = (millis: number) => escape(new Date(millis).toISOString().replace('T', ' ').slice(0, 19));

function methodsOf(u: UserRecord): string[] {
  const methods: string[] = [];
  if (u.password_hash !== null) methods.push('password');
  if (u.otp_auth_enabled) methods.push('otp');
  if (u.passkey !== null) methods.push('passkey');
  for (const account of u.oauth_accounts) methods.push(account.provider_id);
  if (u.totp_secret_base64 !== null) methods.push('totp (MFA)');
  return methods;
}

function projectSection(p: ProjectRecord, now: number): string {
  const keys = p.api_keys
    .map((k) => {
      const live = k.manually_revoked_at_millis === null && k.expires_at_millis > now;
      const parts = (['publishable_client_key', 'secret_server_key', 'super_secret_admin_key'] as const)
        .map((kind) => (k[kind] ? `${KEY_PREFIX[kind]}…${escape(k[kind].last_four)}` : null))
        .filter((s) => s !== null);
      return `<li>${escape(k.description || '(no description)')}: ${parts.join(', ') || 'no keys'}${live ? '' : ' <em>(revoked or expired)</em>'}</li>`;
    })
    .join('');
  const users = Object.values(p.users).sort((a, b) => b.signed_up_at_millis - a.signed_up_at_millis);
  const rows = users
    .slice(0, MAX_USERS)
    .map((u) => {
      const primary = primaryChannel(p, u.id);
      return `<tr><td>${escape(primary?.value ?? '—')}</td><td>${primary ? (primary.is_verified ? 'yes' : 'no') : '—'}</td><td>${escape(methodsOf(u).join(', ') || '—')}</td><td>${escape(u.display_name ?? '')}</td><td><code>${escape(u.id)}</code></td></tr>`;
    })
    .join('');
  const more = users.length > MAX_USERS ? `<p>and ${users.length - MAX_USERS} more</p>` : '';
  return `<section><h3>${escape(p.display_name)} <code>${escape(p.id)}</code></h3>
<p>Key sets (last four characters):</p><ul>${keys || '<li>none</li>'}</ul>
<p>${users.length} user${users.length === 1 ? '' : 's'}</p>
${rows ? `<table><tr><th>E-mail</th><th>Verified</th><th>Sign-in methods</th><th>Name</th><th>Id</th></tr>${rows}</table>${more}` : ''}</section>`;
}

/** The one-time code of a sign-in e-mail, from its subject or text (`… code is ABC123`). */
function otpOf(m: MailboxItem): string | null {
  const match = /code is ([A-Za-z0-9]{4,12})\b/.exec(m.subject) ?? /code for .* is ([A-Za-z0-9]{4,12})\b/.exec(m.text);
  return match?.[1] ?? null;
}

function mailSection(env: EmulatorEnv): string {
  const items = env.mailbox.list().slice(-MAX_MAIL).reverse();
  if (items.length === 0) return '<p>No e-mails yet.</p>';
  const rows = items
    .map((m) => {
      const otp = otpOf(m);
      return `<tr><td>${time(m.sent_at_millis)}</td><td>${escape(m.to)}</td><td>${escape(m.subject)}${otp ? `<br>Code: <b class="otp">${escape(otp)}</b>` : ''}</td><td>${m.link ? link(m.link) : '—'}</td></tr>`;
    })
    .join('');
  return `<table><tr><th>Sent</th><th>To</th><th>Subject</th><th>Link</th></tr>${rows}</table>`;
}

function statsSection(env: EmulatorEnv): string {
  const s = env.stats.snapshot();
  const routes = Object.entries(s.requests)
    .map(([route, byStatus]) => ({ route, byStatus, total: Object.values(byStatus).reduce((a, b) => a + b, 0) }))
    .sort((a, b) => b.total - a.total)
    .slice(0, 10)
    .map(
      (r) =>
        `<tr><td><code>${escape(r.route)}</code></td><td>${r.total}</td><td>${escape(
          Object.entries(r.byStatus)
            .map(([status, n]) => `${status}: ${n}`)
            .join(', '),
        )}</td></tr>`,
    )
    .join('');
  return `<p>Since ${time(s.started_at_millis)}: ${s.requests_total} requests, ${s.writes.total} writes, ${s.token_refreshes} token refreshes, ${s.emails_sent} e-mails, ${s.faults_injected.total} injected faults.</p>
${routes ? `<table><tr><th>Route</th><th>Requests</th><th>By status</th></tr>${routes}</table>` : ''}`;
}

function effectText(effect: FaultEffect): string {
  switch (effect.type) {
    case 'latency':
      return `${effect.ms} ms delay`;
    case 'status':
      return `${effect.status}${effect.retry_after === undefined ? '' : ` (Retry-After ${effect.retry_after})`}`;
    case 'loop-detected':
      return 'LOOP_DETECTED';
    case 'drop':
      return effect.phase === 'after' ? 'connection dropped after the change' : 'connection dropped';
  }
}

const whenText = (rule: FaultRule) =>
  [
    rule.count === undefined ? null : `the next ${rule.count} request${rule.count === 1 ? '' : 's'}`,
    rule.probability === undefined ? null : `${Math.round(rule.probability * 1000) / 10}% of requests`,
  ]
    .filter((part) => part !== null)
    .join(', of them ');

/** The effects the form offers, by the value it posts (see ./routes.ts, `faultFromForm`). */
export const FORM_EFFECTS: Readonly<Record<string, { label: string; effect: FaultEffect }>> = {
  '503': { label: '503 Service Unavailable', effect: { type: 'status', status: 503 } },
  '500': { label: '500 Internal Server Error', effect: { type: 'status', status: 500 } },
  '429': { label: '429 Too Many Requests (Retry-After: 1)', effect: { type: 'status', status: 429, retry_after: '1' } },
  latency: { label: 'a delay (ms below)', effect: { type: 'latency', ms: 0 } },
  drop: { label: 'no answer: the connection is dropped', effect: { type: 'drop', phase: 'before' } },
  'drop-after': { label: 'the change is made, then the connection dropped', effect: { type: 'drop', phase: 'after' } },
  'loop-detected': { label: 'LOOP_DETECTED, as for a request loop', effect: { type: 'loop-detected' } },
};

/** Why a form of the page did nothing, shown in its section. */
export interface PageProblem {
  section: 'faults' | 'clock';
  message: string;
}

const problemIn = (section: PageProblem['section'], problem: PageProblem | undefined) =>
  problem?.section === section ? `<p class="error" role="alert">${escape(problem.message)}</p>` : '';

function faultsSection(env: EmulatorEnv, problem: PageProblem | undefined): string {
  const rules = env.faults.list();
  const rows = rules
    .map(
      (r) =>
        `<tr><td>${escape(r.id)}</td><td>${escape(r.method ?? 'any')}</td><td><code>${escape(r.path)}</code></td><td>${escape(effectText(r.effect))}</td><td>${escape(whenText(r))}</td><td>${r.injected}</td></tr>`,
    )
    .join('');
  const options = Object.entries(FORM_EFFECTS)
    .map(([value, { label }]) => `<option value="${escape(value)}">${escape(label)}</option>`)
    .join('');
  const methods = ['', 'GET', 'POST', 'PATCH', 'PUT', 'DELETE']
    .map((m) => `<option value="${m}">${m === '' ? 'any method' : m}</option>`)
    .join('');
  return `${problemIn('faults', problem)}
${rows ? `<table><tr><th>Rule</th><th>Method</th><th>Path</th><th>Answer</th><th>Fires on</th><th>Fired</th></tr>${rows}</table><form method="post" action="/emulator/page/faults/clear"><button>Remove every rule</button></form>` : '<p>No rules: every request is answered normally.</p>'}
<form method="post" action="/emulator/page/faults" class="controls">
<label>Path <input name="path" value="/api/v1/*" required size="24"></label>
<label>Method <select name="method">${methods}</select></label>
<label>Answer with <select name="effect">${options}</select></label>
<label>Delay <input name="ms" type="number" min="0" max="60000" value="2000"> ms</label>
<label>On the next <input name="count" type="number" min="1"> requests</label>
<label>or on <input name="percent" type="number" min="0" max="100" step="any"> % of them</label>
<button>Add the rule</button>
</form>
<p class="hint">A path pattern's <code>*</code> matches anything. With neither a count nor a share, the rule fires on every matching request until removed. The same as <code>POST /emulator/faults</code>.</p>`;
}

function clockSection(env: EmulatorEnv, problem: PageProblem | undefined): string {
  const offset = env.clock.offset;
  const advanced = offset === 0 ? 'not advanced' : `advanced by ${escape(duration(offset))}`;
  const step = (seconds: number, label: string) =>
    `<button name="advance_seconds" value="${seconds}">+${label}</button>`;
  return `${problemIn('clock', problem)}
<p>Emulator time ${time(env.clock.now())} (${advanced}). Moving it forward expires codes, links and tokens without waiting; it never moves back.</p>
<form method="post" action="/emulator/page/time" class="controls">${step(60, '1 minute')} ${step(600, '10 minutes')} ${step(3600, '1 hour')} ${step(86_400, '1 day')}</form>
<form method="post" action="/emulator/page/time" class="controls"><label>Advance by <input name="advance_seconds" type="number" min="0" step="any" required> seconds</label> <button>Advance</button></form>
<p class="hint">The same as <code>POST /emulator/time</code> with <code>advance_millis</code>.</p>`;
}

/** `90061000` as `1 d 1 h 1 min 1 s`. */
function duration(millis: number): string {
  let seconds = Math.round(millis / 1000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['min', 60],
  ] as const) {
    if (seconds >= size) parts.push(`${Math.floor(seconds / size)} ${unit}`);
    seconds %= size;
  }
  if (seconds > 0 || parts.length === 0) parts.push(`${seconds} s`);
  return parts.join(' ');
}

const STYLE =
  'body{font:14px system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}code{font-size:12px}.otp{font-size:16px;letter-spacing:.1em}section{margin-bottom:1.5em}.controls{display:flex;flex-wrap:wrap;gap:.5em 1em;align-items:center;margin:.5em 0}.hint{color:#555}.error{color:#a00}input[type=number]{width:6em}';

/**
 * The page's policy: nothing is loaded from anywhere (even rendered user data cannot make it), but
 * the empty `data:` favicon that stops browsers asking for /favicon.ico; forms post to the page's
 * own controls only.
 */
export const DEV_PAGE_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'self'";

/** The page: projects, users, the mailbox, faults, the clock and statistics, for a human. Self-contained HTML. */
export function devPage(env: EmulatorEnv, problem?: PageProblem, status = 200): Reply {
  const now = env.clock.now();
  const projects = env.store
    .projects()
    .sort((a, b) => (a.id === 'internal' ? 1 : b.id === 'internal' ? -1 : a.created_at_millis - b.created_at_millis))
    .map((p) => projectSection(p, now))
    .join('');
  const clock = env.clock.offset === 0 ? '' : ` (clock advanced by ${duration(env.clock.offset)})`;
  const body = `<!doctype html><html lang="en"><meta charset="utf-8"><link rel="icon" href="data:,"><title>authbroker emulator</title><style>${STYLE}</style>
<h1>authbroker emulator</h1>
<p>API: <code>${escape(env.baseUrl)}/api/v1</code> · emulator time ${time(now)}${escape(clock)} · <a href="/emulator">refresh</a> · <a href="#faults">faults</a> · <a href="#clock">clock</a> · <a href="/emulator/mailbox">mailbox as JSON</a> · <a href="/emulator/stats">stats as JSON</a></p>
<h2>Mailbox (newest first)</h2>${mailSection(env)}
<h2 id="faults">Faults</h2>${faultsSection(env, problem)}
<h2 id="clock">Clock</h2>${clockSection(env, problem)}
<h2>Projects</h2>${projects}
<h2>Statistics</h2>${statsSection(env)}</html>`;
  return html(body, status, { 'content-security-policy': DEV_PAGE_POLICY });
}

/** `GET /emulator`. */
export function registerDevPage(router: Router): void {
  router.add('GET', '/emulator', (req) => devPage(req.env));
}
