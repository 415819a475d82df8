import { describe } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { defineScenarioTests, emulatorTarget } from '../support/featureTarget.js';
import * as scenarios from '../support/features/projectPermissions.js';

/** The project permissions scenarios against the emulator (the real-service lane runs the same ones against the real backend). */
const emulator = useEmulator();

describe('project permissions', () => {
  defineScenarioTests(scenarios, () => emulatorTarget(emulator()));
});
