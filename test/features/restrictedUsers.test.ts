import { describe } from 'vitest';
import { defineScenarioTests } from '../support/scenarioKit.js';
import { useServiceTarget } from '../support/serviceTarget.js';
import * as scenarios from '../support/features/restrictedUsers.js';

/**
 * The restricted users scenarios against the run's service: a fresh emulator in `npm test`, the real backend in the
 * real-service lane.
 */
const target = useServiceTarget();

describe('restricted users', () => {
  defineScenarioTests(scenarios, target);
});
