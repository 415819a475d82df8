import { existsSync, readdirSync } from 'node:fs';
import { CHROMIUM_PATH } from '../../e2e/support/chromium.js';
import type { Engine, EngineName } from './engine.js';
import { launchChromium, launchFirefox } from './puppeteer.js';
import { launchWebKit } from './webkit.js';

/**
 * Where each engine is on a Debian machine (`.ci/run` installs them: chromium, firefox-esr,
 * webkit2gtk-driver, xvfb, xauth), overridable by environment variables.
 */
const FIREFOX_PATH = process.env.AUTHBROKER_FIREFOX ?? '/usr/bin/firefox-esr';
const WEBKIT_DRIVER_PATH = process.env.AUTHBROKER_WEBKIT_DRIVER ?? '/usr/bin/WebKitWebDriver';
const XVFB_RUN_PATH = '/usr/bin/xvfb-run';

/** MiniBrowser lives in the WebKitGTK library folder, whose name carries the architecture. */
function findMiniBrowser(): string | null {
  if (process.env.AUTHBROKER_MINIBROWSER) return process.env.AUTHBROKER_MINIBROWSER;
  try {
    for (const folder of readdirSync('/usr/lib')) {
      const candidate = `/usr/lib/${folder}/webkit2gtk-4.1/MiniBrowser`;
      if (existsSync(candidate)) return candidate;
    }
  } catch {
    // No /usr/lib to look in.
  }
  return null;
}

interface EngineInstall {
  /** What is missing, or null when the engine can run. */
  missing(): string | null;
  install: string;
  launch(): Promise<Engine>;
}

const installs: Record<EngineName, EngineInstall> = {
  chromium: {
    missing: () => (existsSync(CHROMIUM_PATH) ? null : `Chromium at ${CHROMIUM_PATH}`),
    install: 'apt-get install -y chromium',
    launch: () => launchChromium(CHROMIUM_PATH),
  },
  firefox: {
    missing: () => (existsSync(FIREFOX_PATH) ? null : `Firefox at ${FIREFOX_PATH}`),
    install: 'apt-get install -y firefox-esr',
    launch: () => launchFirefox(FIREFOX_PATH),
  },
  webkit: {
    missing: () => {
      const lacking = [
        existsSync(WEBKIT_DRIVER_PATH) ? null : `WebKitWebDriver at ${WEBKIT_DRIVER_PATH}`,
        findMiniBrowser() === null ? 'MiniBrowser' : null,
        existsSync(XVFB_RUN_PATH) ? null : `xvfb-run at ${XVFB_RUN_PATH}`,
      ].filter(Boolean);
      return lacking.length === 0 ? null : lacking.join(', ');
    },
    install: 'apt-get install -y webkit2gtk-driver xvfb xauth',
    launch: () => launchWebKit({ driver: WEBKIT_DRIVER_PATH, miniBrowser: findMiniBrowser()! }),
  },
};

export function engineAvailable(name: EngineName): boolean {
  return installs[name].missing() === null;
}

/**
 * Whether to skip an engine's scenarios. In CI (CI=true, where .ci/run installs every engine) a
 * missing engine is a failure, never a skip; elsewhere it is skipped with a message saying how to
 * install it.
 */
export function skipEngine(name: EngineName): boolean {
  const missing = installs[name].missing();
  if (missing === null) return false;
  if (process.env.CI)
    throw new Error(`CI=true but ${missing} is missing: .ci/run installs it (${installs[name].install}).`);
  console.warn(
    `\n⚠️  ${name.toUpperCase()} SCENARIOS SKIPPED: ${missing} not found.\n    Install it with: sudo ${installs[name].install}\n`,
  );
  return true;
}

export function launchEngine(name: EngineName): Promise<Engine> {
  return installs[name].launch();
}
