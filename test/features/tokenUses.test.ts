import { describe } from 'vitest';
import { defineScenarioTests } from '../support/scenarioKit.js';
import { useServiceTarget } from '../support/serviceTarget.js';
import * as scenarios from '../support/features/tokenUses.js';

/**
 * The scenarios of the access token's own uses: the partial user and the app server's header, against the run's service: a fresh emulator in `npm test`, the real backend in the
 * real-service lane.
 */
const target = useServiceTarget();

describe("the access token's own uses: the partial user and the app server's header", () => {
  defineScenarioTests(scenarios, target);
});
