import { afterAll, beforeAll, describe } from 'vitest';
import { defineScenarioTests, targetFromEnv } from '../support/featureTarget.js';
import * as anonymous from '../support/features/anonymous.js';
import * as connectedAccounts from '../support/features/connectedAccounts.js';
import * as notificationPreferences from '../support/features/notificationPreferences.js';
import * as projectPermissions from '../support/features/projectPermissions.js';

/**
 * The feature scenarios against a real Stack Auth backend, when the environment names one (see
 * `targetFromEnv`): `set -a; . project.env; set +a; AUTHBROKER_REAL_BASE_URL=http://127.0.0.1:8202
 * AUTHBROKER_REAL_MAILBOX_URL=http://127.0.0.1:8130 npx vitest run test/features/real.test.ts`,
 * with project.env from `create-project.sh` and a mail sink the backend sends to. Skipped
 * otherwise; the real-service lane (`npm run test:real`) runs the same scenarios its own way. The
 * first call of each route compiles it on a development backend (10–60 s).
 */
const target = targetFromEnv();

describe.skipIf(target === null)('the feature scenarios against the real service', () => {
  // The development backend sends e-mail from a queue that a cron job steps; nothing steps it here but this.
  let stepper: ReturnType<typeof setInterval> | undefined;
  beforeAll(() => {
    stepper = setInterval(() => {
      fetch(`${target!.baseUrl}/api/latest/internal/email-queue-step?only_one_step=true`, {
        headers: { authorization: `Bearer ${process.env.STACK_CRON_SECRET ?? 'mock_cron_secret'}`, ...target!.extraRequestHeaders },
      }).catch(() => undefined);
    }, 1000);
  });
  afterAll(() => clearInterval(stepper));
  const modules = { anonymous, projectPermissions, notificationPreferences, connectedAccounts };
  for (const [feature, module] of Object.entries(modules)) {
    describe(feature, () => defineScenarioTests(module, () => target!, 180_000));
  }
});
