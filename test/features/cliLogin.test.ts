import { describe } from 'vitest';
import { defineScenarioTests } from '../support/scenarioKit.js';
import { useServiceTarget } from '../support/serviceTarget.js';
import * as scenarios from '../support/features/cliLogin.js';

/**
 * The scenarios of signing a CLI in with the browser, against the run's service: a fresh emulator in `npm test`, the real backend in the
 * real-service lane.
 */
const target = useServiceTarget();

describe('signing a CLI in with the browser', () => {
  defineScenarioTests(scenarios, target);
});
