import { describe } from 'vitest';
import { defineScenarioTests } from '../support/scenarioKit.js';
import { useServiceTarget } from '../support/serviceTarget.js';
import * as scenarios from '../support/features/receivedInvitations.js';

/**
 * The scenarios of received team invitations against the run's service: a fresh emulator in `npm test`, the real backend in the
 * real-service lane.
 */
const target = useServiceTarget();

describe('received team invitations', () => {
  defineScenarioTests(scenarios, target);
});
