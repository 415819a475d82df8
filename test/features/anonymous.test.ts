import { describe } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { anonymousScenarios } from '../support/features/anonymous.js';
import { defineScenarioTests, emulatorTarget } from '../support/features/target.js';

/** The anonymous-user scenarios against the emulator (the real-service lane runs the same ones against the real backend). */
const emulator = useEmulator();

describe('anonymous users and their upgrade', () => {
  defineScenarioTests(anonymousScenarios, () => emulatorTarget(emulator()));
});
