import { readFileSync } from 'node:fs';

/** The installed release behind an npm alias of the root's devDependencies. */
function installedVersion(alias: string): string {
  return (
    JSON.parse(readFileSync(new URL(`../../node_modules/${alias}/package.json`, import.meta.url), 'utf8')) as {
      version: string;
    }
  ).version;
}

export interface OfficialSdkRelease {
  /** The npm alias it is installed under (the root's devDependencies). */
  alias: 'stackframe-js-oldest' | 'stackframe-js-newest' | 'stackframe-js-hexclave';
  version: string;
}

/**
 * The oldest and the newest published `@stackframe/js` releases that speak the `x-stack-*` protocol,
 * and the first that sends `x-hexclave-*` headers instead (2.8.108). Tests load the packages
 * themselves: from Node (test/emulator/officialSdk.test.ts) or bundled into a page
 * (test/e2e/officialSdk.test.ts).
 */
export const OFFICIAL_SDKS: OfficialSdkRelease[] = [
  { alias: 'stackframe-js-oldest', version: installedVersion('stackframe-js-oldest') },
  { alias: 'stackframe-js-newest', version: installedVersion('stackframe-js-newest') },
  { alias: 'stackframe-js-hexclave', version: installedVersion('stackframe-js-hexclave') },
];
