import { describe } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { notificationPreferenceScenarios } from '../support/features/notificationPreferences.js';
import { defineScenarioTests, emulatorTarget } from '../support/features/target.js';

/** The notification preferences scenarios against the emulator (the real-service lane runs the same ones against the real backend). */
const emulator = useEmulator();

describe('notification preferences', () => {
  defineScenarioTests(notificationPreferenceScenarios, () => emulatorTarget(emulator()));
});
