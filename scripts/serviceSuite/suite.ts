import { readFileSync } from 'node:fs';

/**
 * What the service-suite lane runs: the client-facing files of Stack Auth's backend end-to-end suite
 * (`apps/e2e/tests/backend/endpoints/api/v1/` in stack-auth/stack-auth), at the commit the real-service
 * lane pins, and the ports each target answers on.
 */

export const ROOT = new URL('../../', import.meta.url);

/** The pin of scripts/real/start-backend.sh: both lanes run the same upstream commit. */
export const PINNED_COMMIT = (() => {
  const script = readFileSync(new URL('scripts/real/start-backend.sh', ROOT), 'utf8');
  const commit = /^PINNED_COMMIT=([0-9a-f]{40})\b/m.exec(script)?.[1];
  if (commit === undefined) throw new Error('scripts/real/start-backend.sh names no PINNED_COMMIT');
  return commit;
})();

/** Where the suite's files are, under the exported `apps/e2e`. */
export const SUITE_DIR = 'tests/backend/endpoints/api/v1';

/**
 * The 40 files a client of the REST API meets (442 tests, not counting `it.todo`): sign-in and
 * sessions and CLI login, users, contact channels, teams and their members, permissions, API keys, connected
 * accounts, notification preferences, projects. Left out: payments, e-mail templates and queues,
 * analytics, integrations, the dashboard's internal routes.
 */
export const SUITE_FILES: readonly string[] = [
  'auth/password/reset',
  'auth/password/send-reset-code',
  'auth/password/set',
  'auth/password/sign-in',
  'auth/password/sign-up',
  'auth/password/update',
  'auth/otp/send-sign-in-code',
  'auth/otp/sign-in',
  'auth/passkey/register',
  'auth/passkey/sign-in',
  'auth/mfa/sign-in',
  'auth/oauth/authorize',
  'auth/oauth/callback',
  'auth/oauth/token',
  'auth/sessions/current/index',
  'auth/sessions/current/refresh',
  'auth/sessions/index',
  'auth/anonymous/anonymous-comprehensive',
  'auth/anonymous/anonymous-upgrade',
  'auth/anonymous/sign-up',
  'auth/cli/route',
  'auth/cli/poll',
  'auth/cli/complete',
  'users',
  'users-primary-email',
  'contact-channels/contact-channels',
  'contact-channels/send-verification-code',
  'contact-channels/verify',
  'teams',
  'team-memberships',
  'team-member-profiles',
  'team-invitations',
  'team-permissions',
  'team-permission-definitions',
  'project-permissions',
  'project-permission-definitions',
  'api-keys',
  'connected-accounts',
  'notification-preferences',
  'projects',
].map((name) => `${name}.test.ts`);

export type TargetName = 'emulator' | 'real';

/**
 * The suite reaches everything through `NEXT_PUBLIC_STACK_PORT_PREFIX`: the API on PREFIX02, Inbucket's
 * API on PREFIX05, the mock OAuth server on PREFIX14. The real backend of scripts/real runs with 82;
 * the emulator takes 83 by default (8102 is the emulator's everyday port), `SERVICE_SUITE_PORT_PREFIX`
 * changes it.
 */
export function portPrefix(target: TargetName): string {
  if (target === 'real') return '82';
  const prefix = process.env.SERVICE_SUITE_PORT_PREFIX ?? '83';
  if (!/^[1-9]\d$/.test(prefix) || prefix === '82')
    throw new Error(`SERVICE_SUITE_PORT_PREFIX must be two digits (10 to 99), not 82; got "${prefix}".`);
  return prefix;
}

export const port = (prefix: string, suffix: string) => Number(`${prefix}${suffix}`);

/** Stack Auth's development keys of its `internal` project, which the suite uses. */
export const STACK_DEVELOPMENT_KEYS = {
  publishableClientKey: 'this-publishable-client-key-is-for-local-development-only',
  secretServerKey: 'this-secret-server-key-is-for-local-development-only',
  superSecretAdminKey: 'this-super-secret-admin-key-is-for-local-development-only',
} as const;

/** The lane's artifacts (never committed): results of the last runs, logs, the exported suite. */
export const ARTIFACTS = new URL('.artifacts/service-suite/', ROOT);

/** The exported suite and its packages (AGPL-3.0 code: only ever in this ignored folder). */
export function workFolder(): string {
  return process.env.SERVICE_SUITE_DIR ?? new URL('work/', ARTIFACTS).pathname.replace(/\/$/, '');
}

export const REPORT_FILE = new URL('test/service-suite/REPORT.md', ROOT);
