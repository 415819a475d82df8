import { describe } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { defineScenarioTests, emulatorTarget } from '../support/featureTarget.js';
import * as scenarios from '../support/features/anonymous.js';

/** The anonymous users and their upgrade scenarios against the emulator (the real-service lane runs the same ones against the real backend). */
const emulator = useEmulator();

describe('anonymous users and their upgrade', () => {
  defineScenarioTests(scenarios, () => emulatorTarget(emulator()));
});
