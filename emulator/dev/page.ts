import type { EmulatorEnv } from '../env.js';
import type { Router } from '../http/router.js';
import { html } from '../http/types.js';
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

const STYLE =
  'body{font:14px system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}code{font-size:12px}.otp{font-size:16px;letter-spacing:.1em}section{margin-bottom:1.5em}';

/** `GET /emulator`: projects, users, the mailbox and statistics, for a human. Self-contained HTML. */
export function registerDevPage(router: Router): void {
  router.add('GET', '/emulator', (req) => {
    const env = req.env;
    const now = env.clock.now();
    const projects = env.store
      .projects()
      .sort((a, b) => (a.id === 'internal' ? 1 : b.id === 'internal' ? -1 : a.created_at_millis - b.created_at_millis))
      .map((p) => projectSection(p, now))
      .join('');
    const clock = env.clock.offset === 0 ? '' : ` (clock advanced by ${Math.round(env.clock.offset / 1000)} s)`;
    const body = `<!doctype html><html lang="en"><meta charset="utf-8"><link rel="icon" href="data:,"><title>authbroker emulator</title><style>${STYLE}</style>
<h1>authbroker emulator</h1>
<p>API: <code>${escape(env.baseUrl)}/api/v1</code> · emulator time ${time(now)}${escape(clock)} · <a href="/emulator">refresh</a> · <a href="/emulator/mailbox">mailbox as JSON</a> · <a href="/emulator/stats">stats as JSON</a></p>
<h2>Mailbox (newest first)</h2>${mailSection(env)}
<h2>Projects</h2>${projects}
<h2>Statistics</h2>${statsSection(env)}</html>`;
    // Nothing external is loaded; the policy makes sure of it, even for rendered user data.
    return html(body, 200, {
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
    });
  });
}
