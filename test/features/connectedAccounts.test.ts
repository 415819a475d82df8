import { describe } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { connectedAccountScenarios } from '../support/features/connectedAccounts.js';
import { defineScenarioTests, emulatorTarget } from '../support/features/target.js';

/** The connected accounts scenarios against the emulator (the real-service lane runs the same ones against the real backend). */
const emulator = useEmulator();

describe('connected accounts', () => {
  defineScenarioTests(connectedAccountScenarios, () => emulatorTarget(emulator()));
});
