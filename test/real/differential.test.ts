import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorTarget, realTarget, realTargetFile, type ServiceTarget } from '../support/serviceTarget.js';
import { EXPLANATIONS } from './differential/explained.js';
import type { FlowSide } from './differential/flow.js';
import { FLOWS } from './differential/flows/index.js';
import { clientRoutes, routeMatches, runFlow, type FlowResult } from './differential/run.js';

/**
 * The differential check: every flow runs against a fresh emulator and the real backend, and every
 * difference in status, known error, protocol headers and body keys must be explained
 * (`differential/explained.ts`, each reason also in emulator/README.md). Only in the real-service lane.
 */
const file = realTargetFile();
const OUT = new URL('../../.artifacts/real/', import.meta.url);
/**
 * `DIFFERENTIAL_REAL_FROM=<differential.json>`: compare with the real backend's answers of that run instead of asking
 * it again.
 */
const recorded = process.env.DIFFERENTIAL_REAL_FROM
  ? (JSON.parse(readFileSync(process.env.DIFFERENTIAL_REAL_FROM, 'utf8')) as FlowResult[])
  : null;

function sideOf(target: ServiceTarget): FlowSide {
  return {
    name: target.kind,
    baseUrl: target.baseUrl,
    internalPublishableClientKey: target.internalPublishableClientKey,
    extraRequestHeaders: target.extraRequestHeaders,
    mail: (to) => target.mail(to),
  };
}

describe.skipIf(file === null)('differential check: the emulator against the real backend', () => {
  let emulator: ServiceTarget;
  let real: ServiceTarget;
  const results: FlowResult[] = [];

  beforeAll(async () => {
    emulator = await emulatorTarget({ unknownEmailDelayMillis: 0 });
    real = realTarget(file!);
  });
  afterAll(async () => {
    await emulator?.stop();
    mkdirSync(OUT, { recursive: true });
    writeFileSync(new URL('differential.json', OUT), `${JSON.stringify(results, null, 1)}\n`);
  });

  for (const flow of FLOWS) {
    it(`${flow.name}: ${flow.covers}`, async () => {
      const result = await runFlow(
        flow,
        sideOf(emulator),
        sideOf(real),
        EXPLANATIONS,
        recorded?.find((r) => r.flow === flow.name)?.real,
      );
      results.push(result);
      const unexplained = result.differences.filter((d) => d.explanation === null);
      expect(result.real.length, 'the real backend answered nothing').toBeGreaterThan(0);
      expect(
        unexplained.map(
          (d) => `${d.label} (${d.method} ${d.route}) ${d.kind} ${d.subject}: emulator ${d.emulator}, real ${d.real}`,
        ),
      ).toEqual([]);
    }, 1_800_000);
  }

  it('covers every request our client makes', () => {
    const exchanged = new Set(results.flatMap((r) => [...r.emulator, ...r.real].map((e) => `${e.method} ${e.route}`)));
    const missing = clientRoutes(new URL('../../protocol/endpoints/', import.meta.url)).filter(
      (route) => ![...exchanged].some((e) => routeMatches(route, e)),
    );
    expect(missing).toEqual([]);
  });
});
