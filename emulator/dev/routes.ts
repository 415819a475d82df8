import { InvalidArgumentError } from '../../protocol/errors/errors.js';
import { parseFaultRule } from '../faults.js';
import type { Router } from '../http/router.js';
import { json, type ApiRequest } from '../http/types.js';
import { registerDevPage } from './page.js';
import { registerMockOAuthProvider } from './oauthProvider.js';

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
  registerMockOAuthProvider(router);
}

function requireBody(req: ApiRequest): Record<string, unknown> {
  if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) {
    throw new InvalidArgumentError('body', 'Send a JSON object with content-type: application/json.');
  }
  return req.body as Record<string, unknown>;
}
