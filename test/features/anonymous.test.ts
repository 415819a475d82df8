import { describe } from 'vitest';
import { defineScenarioTests } from '../support/scenarioKit.js';
import { useServiceTarget } from '../support/serviceTarget.js';
import * as scenarios from '../support/features/anonymous.js';

/**
 * The anonymous users and their upgrade scenarios against the run's service: a fresh emulator in `npm test`, the real
 * backend in the real-service lane.
 */
const target = useServiceTarget();

describe('anonymous users and their upgrade', () => {
  defineScenarioTests(scenarios, target);
});
