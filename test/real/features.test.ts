import { existsSync, readdirSync } from 'node:fs';
import { describe, it } from 'vitest';
import { realTarget, realTargetFile } from '../support/serviceTarget.js';

/**
 * The feature scenarios of test/support/features/*.ts against the real backend: each module's
 * exported functions are scenarios over a target ({ baseUrl, projectId, publishableClientKey,
 * secretServerKey, superSecretAdminKey }, plus the mailbox and the headers the development backend
 * wants), the same functions their emulator tests run. Only in the real-service lane.
 */
type Scenario = (target: ReturnType<typeof realTarget>) => Promise<void>;

const FEATURES = new URL('../support/features/', import.meta.url);
const file = realTargetFile();
const names = existsSync(FEATURES) ? readdirSync(FEATURES).filter((f) => f.endsWith('.ts')).sort() : [];
const modules = await Promise.all(names.map(async (name) => ({ name, exports: (await import(new URL(name, FEATURES).href)) as Record<string, unknown> })));
const scenarios = modules.flatMap(({ name, exports }) =>
  Object.entries(exports)
    .filter((entry): entry is [string, Scenario] => typeof entry[1] === 'function')
    .map(([exported, run]) => ({ name: `${name}: ${exported}`, run })),
);

describe.skipIf(file === null)('feature scenarios against the real backend', () => {
  it.skipIf(scenarios.length > 0)('has no feature scenarios yet (test/support/features/*.ts)', () => undefined);
  for (const scenario of scenarios) it(scenario.name, () => scenario.run(realTarget(file!)), 600_000);
});
