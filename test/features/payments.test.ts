import { describe } from 'vitest';
import { defineScenarioTests } from '../support/scenarioKit.js';
import { useServiceTarget } from '../support/serviceTarget.js';
import * as scenarios from '../support/features/payments.js';

/**
 * The payments scenarios against the run's service: a fresh emulator in `npm test`, the real backend in the
 * real-service lane (in its test mode, with the lane's Stripe stand-in).
 */
const target = useServiceTarget();

describe('payments', () => {
  defineScenarioTests(scenarios, target);
});
