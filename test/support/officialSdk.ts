import { readFileSync } from 'node:fs';
import { StackClientApp as NewestStackClientApp } from 'stackframe-js-newest';
import { StackClientApp as OldestStackClientApp } from 'stackframe-js-oldest';
import type { RunningEmulator } from '../../emulator/index.js';
import { runSdkFlow, type SdkAppClass, type SdkFlowResult } from './officialSdkFlow.js';

/** The installed release behind an npm alias of the root's devDependencies. */
function installedVersion(alias: string): string {
  return (JSON.parse(readFileSync(new URL(`../../node_modules/${alias}/package.json`, import.meta.url), 'utf8')) as { version: string }).version;
}

export interface OfficialSdk {
  /** The npm alias it is installed under (the root's devDependencies). */
  alias: string;
  version: string;
  StackClientApp: SdkAppClass;
}

/**
 * The oldest and the newest published `@stackframe/js` releases that speak the `x-stack-*` protocol
 * (2.8.108 sends `x-hexclave-*` headers). Their own types differ between releases; the flow needs
 * only the methods `SdkAppClass` names.
 */
export const OFFICIAL_SDKS: OfficialSdk[] = [
  { alias: 'stackframe-js-oldest', version: installedVersion('stackframe-js-oldest'), StackClientApp: OldestStackClientApp as unknown as SdkAppClass },
  { alias: 'stackframe-js-newest', version: installedVersion('stackframe-js-newest'), StackClientApp: NewestStackClientApp as unknown as SdkAppClass },
];

/** The flow from Node with an in-memory token store, moving the emulator's clock in-process. */
export function sdkFlow(sdk: OfficialSdk, em: RunningEmulator, email: string): Promise<SdkFlowResult> {
  const keys = em.projects.demo;
  return runSdkFlow(sdk.StackClientApp, {
    baseUrl: em.url,
    projectId: keys.id,
    publishableClientKey: keys.publishableClientKey,
    tokenStore: 'memory',
    email,
    password: 'correct horse battery',
    verificationCallbackUrl: 'http://localhost:5173/handler/email-verification',
    shiftEmulatorClock: async (millis) => em.env.clock.advance(millis),
    expiredByMillis: em.env.accessTokenTtlMillis + 60_000,
  });
}
