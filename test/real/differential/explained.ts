import type { Difference, Explanation } from './compare.js';

/**
 * The differences between the emulator and the real backend that stay, each with why. Every reason
 * here is in emulator/README.md ("Where it differs from the service today") too; a difference that
 * matches none fails the differential check.
 */

const tokens = (value: string) =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
/** The emulator's list is the real one plus the `x-hexclave-*` twins, and nothing else. */
const onlyHexclaveExtra = (d: Difference) => {
  const emulator = tokens(d.emulator).filter((t) => !t.startsWith('x-hexclave-'));
  const real = tokens(d.real);
  return emulator.length === real.length && emulator.every((t) => real.includes(t));
};
const METRICS = /^GET \/internal\/metrics$/;
const EMAIL_TEMPLATES = /^(GET|PATCH|DELETE) \/email-templates(\/[a-z_]+)?$/;

export const EXPLANATIONS: readonly Explanation[] = [
  {
    kind: 'header',
    subject: /^access-control-(allow|expose)-headers$/,
    when: onlyHexclaveExtra,
    reason:
      'The emulator also allows and exposes the x-hexclave-* twins of the protocol headers, which @stackframe/js 2.8.108 and later send; this backend snapshot knows only x-stack-* (README: header families).',
  },
  {
    route: /^DELETE \/auth\/sessions\/current$/,
    label: /^sign out again$/,
    reason:
      'Signing out with the access token of a session that has already ended is a 500 on the backend (an unhandled missing refresh token); the emulator answers REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED, which a client can act on (README: backend defects).',
  },
  {
    route: EMAIL_TEMPLATES,
    reason:
      "The service removed the v2.7 e-mail template routes (templates are TSX sources with themes under /internal/email-templates now); the emulator keeps them for authbroker/server's admin template calls and the demo, until those move to the new model (README: e-mail templates).",
  },
  {
    route: METRICS,
    kind: ['key-only-in-emulator', 'key-only-in-real'],
    reason:
      "The dashboard's metrics grew into analytics, auth, e-mail and payment overviews fed by ClickHouse, which the emulator does not keep; it answers v2.7's shape, which authbroker/server's getProjectMetrics types (README: metrics).",
  },
  {
    flow: /^payments$/,
    label: /^change a quantity \(server\)$/,
    reason:
      "A server's update-quantity is a 500 on the backend (`Cannot use $replica inside of a transaction`: it reads the ledger from the read replica inside its own transaction); the emulator changes the quantity, as the route is meant to (README: payments).",
  },
];
