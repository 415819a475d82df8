/**
 * Every feature scenario of issue 31 item 4, by feature: what the real-service lane runs against the
 * real backend, and the tests in test/features/ against the emulator.
 */
import { anonymousScenarios } from './anonymous.js';
import { connectedAccountScenarios } from './connectedAccounts.js';
import { notificationPreferenceScenarios } from './notificationPreferences.js';
import { projectPermissionScenarios } from './projectPermissions.js';
import type { Scenarios } from './target.js';

export const featureScenarios: Record<string, Scenarios> = {
  'anonymous users and their upgrade': anonymousScenarios,
  'project permissions': projectPermissionScenarios,
  'notification preferences': notificationPreferenceScenarios,
  'connected accounts': connectedAccountScenarios,
};

export { defineScenarioTests, emulatorTarget, targetFromEnv, type Scenario, type Scenarios, type ServiceTarget } from './target.js';
