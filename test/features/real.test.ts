import { describe } from 'vitest';
import { defineScenarioTests, featureScenarios, targetFromEnv } from '../support/features/index.js';

/**
 * The feature scenarios against a real Stack Auth backend, when the environment names one (see
 * `targetFromEnv`): `set -a; . project.env; set +a; AUTHBROKER_REAL_BASE_URL=http://127.0.0.1:8202
 * npx vitest run test/features/real.test.ts`, with project.env from `create-project.sh`. Skipped
 * otherwise. The first call of each route compiles it on a development backend (10–60 s).
 */
const target = targetFromEnv();

describe.skipIf(target === null)('the feature scenarios against the real service', () => {
  for (const [feature, scenarios] of Object.entries(featureScenarios)) {
    describe(feature, () => defineScenarioTests(scenarios, () => target!, 180_000));
  }
});
