import { describe } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { projectPermissionScenarios } from '../support/features/projectPermissions.js';
import { defineScenarioTests, emulatorTarget } from '../support/features/target.js';

/** The project-permission scenarios against the emulator (the real-service lane runs the same ones against the real backend). */
const emulator = useEmulator();

describe('project permissions', () => {
  defineScenarioTests(projectPermissionScenarios, () => emulatorTarget(emulator()));
});
