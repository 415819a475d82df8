import type { DailyActivity, ProjectMetrics, SentEmail } from '../../protocol/resources/admin.js';
import { oauthProviderIds } from '../../protocol/resources/project.js';
import type { ServerUser } from '../../protocol/resources/user.js';
import { randomToken } from '../crypto.js';
import { ADMIN, requireAccess } from '../http/access.js';
import type { Router } from '../http/router.js';
import { json } from '../http/types.js';
import { email, obj, validate, yup } from '../http/validate.js';
import { recordSentEmail, senderConfigOf } from '../mailbox.js';
import type { ProjectRecord, UserRecord } from '../state/model.js';
import { serverUserView } from '../views.js';

const DAY_MILLIS = 24 * 3600 * 1000;
const dayOf = (millis: number) => new Date(millis).toISOString().slice(0, 10);

/** 31 UTC days, today−30 … today, each with `count(day)`. */
function dailySeries(now: number, count: (day: string) => number): DailyActivity[] {
  const days: DailyActivity[] = [];
  for (let back = 30; back >= 0; back--) {
    const date = dayOf(now - back * DAY_MILLIS);
    days.push({ date, activity: count(date) });
  }
  return days;
}

const knownMethods = new Set<string>(['password', 'otp', 'passkey', ...oauthProviderIds]);

/** Each user counts once per method it has used; anything unrecognised is `other`. */
function loginMethods(users: UserRecord[]): Array<{ method: string; count: number }> {
  const counts = new Map<string, number>();
  for (const user of users) {
    for (const method of new Set(user.login_methods.map((m) => (knownMethods.has(m) ? m : 'other'))))
      counts.set(method, (counts.get(method) ?? 0) + 1);
  }
  return [...counts]
    .map(([method, count]) => ({ method, count }))
    .sort((a, b) => b.count - a.count || a.method.localeCompare(b.method));
}

export function projectMetrics(p: ProjectRecord, now: number): ProjectMetrics<ServerUser> {
  const users = Object.values(p.users);
  const signUpsByDay = new Map<string, number>();
  for (const user of users)
    signUpsByDay.set(dayOf(user.signed_up_at_millis), (signUpsByDay.get(dayOf(user.signed_up_at_millis)) ?? 0) + 1);
  return {
    total_users: users.length,
    daily_users: dailySeries(now, (day) => signUpsByDay.get(day) ?? 0),
    daily_active_users: dailySeries(now, (day) => p.activity[day]?.length ?? 0),
    // The emulator has no location data for requests.
    users_by_country: {},
    recently_registered: [...users]
      .sort((a, b) => b.signed_up_at_millis - a.signed_up_at_millis)
      .slice(0, 5)
      .map((u) => serverUserView(p, u)),
    recently_active: users
      .filter((u) => u.last_active_at_millis !== null)
      .sort((a, b) => (b.last_active_at_millis ?? 0) - (a.last_active_at_millis ?? 0))
      .slice(0, 5)
      .map((u) => serverUserView(p, u)),
    login_methods: loginMethods(users),
  };
}

/** Why no mail server could be reached with this configuration, or null when it looks usable. */
function unusableReason(config: { host: string; port: number }): string | null {
  if (config.host.trim() === '' || !Number.isInteger(config.port) || config.port <= 0 || config.port > 65535) {
    return 'Failed to connect to the email host. Please make sure the email host configuration is correct.';
  }
  return null;
}

/** Svix token, metrics, test e-mail and the sent-e-mail log (PROTOCOL.md §5.8). */
export function registerAdminMiscRoutes(router: Router): void {
  router.add(
    'POST',
    '/webhooks/svix-token',
    (req) => {
      requireAccess(req, ADMIN);
      validate(req, { body: obj({}).defined() });
      // There is no Svix behind the emulator: an opaque token of the right shape is all a client sees.
      return json({ token: `emulator_svix_${randomToken(40)}` }, 201);
    },
    { write: false },
  );

  router.add('GET', '/internal/metrics', (req) => {
    const auth = requireAccess(req, ADMIN);
    validate(req, {});
    return json(projectMetrics(auth.project, req.now));
  });

  router.add('POST', '/internal/send-test-email', (req) => {
    const auth = requireAccess(req, ADMIN);
    const { body } = validate(req, {
      body: obj({
        recipient_email: email().defined(),
        email_config: obj({
          host: yup.string().defined(),
          port: yup.number().defined(),
          username: yup.string().defined(),
          password: yup.string().defined(),
          sender_name: yup.string().defined(),
          sender_email: email().defined(),
        }).defined(),
      }).defined(),
    });
    const config = body.email_config;
    const subject = 'Test Email from Stack Auth';
    const sender_config = senderConfigOf({ type: 'standard', ...config });
    const error = unusableReason(config);
    // SMTP failures are an answer, never an HTTP error (§5.8).
    recordSentEmail(auth.project, {
      subject,
      to: [body.recipient_email],
      sent_at_millis: req.now,
      error: error === null ? null : { message: error },
      sender_config,
    });
    if (error !== null) return json({ success: false, error_message: error });
    req.env.mailbox.deliver({
      project_id: auth.project.id,
      to: body.recipient_email,
      subject,
      text: 'Successful email from Stack Auth',
      html: '<p>Successful email from Stack Auth</p>',
      template: 'test',
      link: null,
    });
    req.env.stats.email();
    return json({ success: true });
  });

  router.add('GET', '/internal/emails', (req) => {
    const auth = requireAccess(req, ADMIN);
    validate(req, {});
    const p = auth.project;
    const items: SentEmail[] = p.sent_emails
      .map((e, index) => ({ e, index }))
      .sort((a, b) => b.e.sent_at_millis - a.e.sent_at_millis || b.index - a.index)
      .slice(0, 100)
      .map(({ e }) => ({
        id: e.id,
        subject: e.subject,
        sent_at_millis: e.sent_at_millis,
        to: [...e.to],
        sender_config: e.sender_config ?? senderConfigOf(p.config.email_config),
        error: e.error,
      }));
    return json({ items, is_paginated: false });
  });
}
