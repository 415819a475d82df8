import { describe } from 'vitest';
import { defineScenarioTests } from '../support/scenarioKit.js';
import { useServiceTarget } from '../support/serviceTarget.js';
import * as scenarios from '../support/features/ownedApiKeys.js';

/**
 * The scenarios of users' and teams' own API keys against the run's service: a fresh emulator in `npm test`, the real backend in the
 * real-service lane.
 */
const target = useServiceTarget();

describe("users' and teams' own API keys", () => {
  defineScenarioTests(scenarios, target);
});
