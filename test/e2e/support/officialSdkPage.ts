/**
 * The page of test/e2e/officialSdk.test.ts: the official SDK releases bundled for the browser,
 * and the shared flow, which the test runs in the page with `window.runOfficialSdk`.
 */
import { StackClientApp as HexclaveStackClientApp } from 'stackframe-js-hexclave';
import { StackClientApp as NewestStackClientApp } from 'stackframe-js-newest';
import { StackClientApp as OldestStackClientApp } from 'stackframe-js-oldest';
import type { OfficialSdkRelease } from '../../support/officialSdk.js';
import {
  runSdkFlow,
  type SdkAppClass,
  type SdkFlowOptions,
  type SdkFlowResult,
} from '../../support/officialSdkFlow.js';

const releases: Record<OfficialSdkRelease['alias'], SdkAppClass> = {
  'stackframe-js-oldest': OldestStackClientApp as unknown as SdkAppClass,
  'stackframe-js-newest': NewestStackClientApp as unknown as SdkAppClass,
  'stackframe-js-hexclave': HexclaveStackClientApp as unknown as SdkAppClass,
};

declare global {
  interface Window {
    runOfficialSdk(
      alias: OfficialSdkRelease['alias'],
      options: Omit<SdkFlowOptions, 'shiftEmulatorClock'>,
    ): Promise<SdkFlowResult>;
    /** Exposed by the test: moves the emulator's clock in the test's process. */
    shiftEmulatorClock(millis: number): Promise<void>;
  }
}

window.runOfficialSdk = (alias, options) => {
  return runSdkFlow(releases[alias], { ...options, shiftEmulatorClock: (millis) => window.shiftEmulatorClock(millis) });
};
