import { InvalidArgumentError } from '../../protocol/errors/errors.js';
import { parseFaultRule, type FaultRuleInput } from '../faults.js';
import type { Router } from '../http/router.js';
import { json, type ApiRequest, type Reply } from '../http/types.js';
import { devPage, FORM_EFFECTS, registerDevPage, type PageProblem } from './page.js';
import { registerMockOAuthProvider } from './oauthProvider.js';
import { registerCheckoutPage } from './checkoutPage.js';

/**
 * The emulator's own endpoints, under `/emulator` and never under `/api/v1`: the mailbox, fault
 * injection, statistics and the clock. Bad input answers 400 with an INVALID_ARGUMENT error.
 */
export function registerDevRoutes(router: Router): void {
  router.add('GET', '/emulator/mailbox', (req) => {
    const to = req.query.to;
    return json({ items: req.env.mailbox.list(to) });
  });
  router.add(
    'DELETE',
    '/emulator/mailbox',
    (req) => {
      req.env.mailbox.clear();
      return json({ success: true });
    },
    { write: false },
  );

  router.add('GET', '/emulator/faults', (req) => json({ rules: req.env.faults.list() }));
  router.add(
    'POST',
    '/emulator/faults',
    (req) => {
      const body = requireBody(req);
      const inputs = Array.isArray(body.rules) ? body.rules : body.rules === undefined ? [body] : null;
      if (inputs === null) throw new InvalidArgumentError('rules', 'rules must be an array of fault rules.');
      if (body.seed !== undefined && (typeof body.seed !== 'number' || !Number.isInteger(body.seed)))
        throw new InvalidArgumentError('seed', 'seed must be an integer.');
      const parsed = inputs.map((rule, i) => parseFaultRule(rule, Array.isArray(body.rules) ? `rules[${i}]` : 'rule'));
      return json({ rules: req.env.faults.add(parsed, body.seed as number | undefined) });
    },
    { write: false },
  );
  router.add(
    'DELETE',
    '/emulator/faults',
    (req) => {
      req.env.faults.clear();
      return json({ success: true });
    },
    { write: false },
  );

  router.add('GET', '/emulator/stats', (req) => json(req.env.stats.snapshot()));
  router.add(
    'DELETE',
    '/emulator/stats',
    (req) => {
      req.env.stats.reset();
      return json({ success: true });
    },
    { write: false },
  );

  router.add('GET', '/emulator/time', (req) =>
    json({ now_millis: req.env.clock.now(), offset_millis: req.env.clock.offset }),
  );
  router.add(
    'POST',
    '/emulator/time',
    (req) => {
      const body = requireBody(req);
      const advance = body.advance_millis;
      if (typeof advance !== 'number' || !Number.isFinite(advance) || advance < 0)
        throw new InvalidArgumentError('advance_millis', 'advance_millis must be a non-negative number.');
      req.env.clock.advance(advance);
      return json({ now_millis: req.env.clock.now(), offset_millis: req.env.clock.offset });
    },
    { write: false },
  );

  registerDevPage(router);
  registerPageControls(router);
  registerMockOAuthProvider(router);
  registerCheckoutPage(router);
}

/**
 * The dev page's forms (plain HTML forms: the page runs no script). Each does what its JSON
 * endpoint does, then sends the browser back to the page (303), or shows the page again with
 * why it did nothing (400). Only the emulator's own pages may post them (the dev endpoints'
 * Origin check, emulator/http/guard.ts).
 */
function registerPageControls(router: Router): void {
  const control =
    (section: PageProblem['section'], act: (req: ApiRequest) => void) =>
    (req: ApiRequest): Reply => {
      try {
        act(req);
        // Back to the page, which shows the change (a new rule in the list, the new time).
        return { kind: 'redirect', status: 303, location: `/emulator#${section}` };
      } catch (error) {
        if (!(error instanceof InvalidArgumentError)) throw error;
        return devPage(req.env, { section, message: error.message }, 400);
      }
    };
  router.add(
    'POST',
    '/emulator/page/faults',
    control('faults', (req) => {
      req.env.faults.add([parseFaultRule(faultFromForm(formOf(req)), 'form')]);
    }),
    { write: false },
  );
  router.add(
    'POST',
    '/emulator/page/faults/clear',
    control('faults', (req) => {
      req.env.faults.clear();
    }),
    { write: false },
  );
  router.add(
    'POST',
    '/emulator/page/time',
    control('clock', (req) => {
      const value = formOf(req).advance_seconds ?? '';
      const seconds = value.trim() === '' ? NaN : Number(value);
      if (!Number.isFinite(seconds) || seconds < 0)
        throw new InvalidArgumentError('advance_seconds', 'Advance by a number of seconds, 0 or more.');
      req.env.clock.advance(Math.round(seconds * 1000));
    }),
    { write: false },
  );
}

/** A form's fields (application/x-www-form-urlencoded), every value a string. */
function formOf(req: ApiRequest): Record<string, string | undefined> {
  if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) return {};
  return req.body as Record<string, string | undefined>;
}

/** The fault form's fields as a rule for parseFaultRule, which checks it as it checks the JSON API's. */
export function faultFromForm(form: Record<string, string | undefined>): FaultRuleInput {
  const choice = FORM_EFFECTS[form.effect ?? ''];
  if (choice === undefined) throw new InvalidArgumentError('effect', 'Choose what the rule answers with.');
  const number = (field: string): number | undefined => {
    const value = form[field]?.trim() ?? '';
    if (value === '') return undefined;
    const parsed = Number(value);
    if (!Number.isFinite(parsed)) throw new InvalidArgumentError(field, `${field} must be a number.`);
    return parsed;
  };
  const count = number('count');
  const percent = number('percent');
  const effect = choice.effect.type === 'latency' ? { type: 'latency' as const, ms: number('ms') ?? 0 } : choice.effect;
  return {
    path: form.path?.trim() ?? '',
    ...(form.method ? { method: form.method } : {}),
    // Neither: every matching request, until the rule is removed.
    ...(count === undefined && percent === undefined ? { probability: 1 } : {}),
    ...(count === undefined ? {} : { count }),
    ...(percent === undefined ? {} : { probability: percent / 100 }),
    effect,
  };
}

function requireBody(req: ApiRequest): Record<string, unknown> {
  if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) {
    throw new InvalidArgumentError('body', 'Send a JSON object with content-type: application/json.');
  }
  return req.body as Record<string, unknown>;
}
