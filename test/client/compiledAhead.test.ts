// @vitest-environment node
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { compiledAheadPlugin } from '../../scripts/compiledAhead.mjs';

/**
 * What a page runs before its first frame (creating the client, subscribing, reading the kept copy)
 * is, for its larger functions, compiled with the script rather than at each function's first call
 * (scripts/compiledAhead.mjs marks them in the build). V8 logs each function it compiles at its first call
 * (`--log-function-events`: a `parse-function` then); the larger ones may not be among them, and
 * what is among them is exactly the list below, each left lazy for a reason.
 */
const dir = mkdtempSync(join(tmpdir(), 'authbroker-compiled-ahead-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What took most of the compilation before (a trace of the bench's client-only page): 0.05–0.4 ms each. */
const COMPILED_AHEAD = [
  'createClientOn',
  'linkToBroker',
  'checkConnectOptions',
  'refuseSecretsInBrowserOptions',
  'checkProjectId',
  'checkPublishableClientKey',
  'persistedSnapshots',
  'load',
  'read',
  'isRecord',
  'fitsShape',
  'hashQueryKey',
  'createQueryStore',
  'subscribe',
  'seed',
  'open',
];

/**
 * What is left to compile at its first call, on purpose: the public functions, which stay function
 * declarations, the link's small closures (apiSoon and its promise's executor), the loop that gives
 * the client its forwarded methods, forcedHost's and brokerWorkerName's one line, and fitsShape's every() callbacks: each
 * wrapper would cost bytes up front, where every export is within its 10 kB by a few bytes. (The
 * handler paths are not on the path at all: worked out when first read.)
 */
const LEFT_LAZY = [
  'createBrokerClient in client/pageClient.ts',
  'isUuid in protocol/args.ts',
  'normalizeBaseUrl in protocol/credentials.ts',
  'isPast in client/kept/keptCopyReader.ts',
  '(anonymous) in contract/keptShapes.ts',
  'forwardCalls in client/clientActions.ts',
  'forcedHost in client/connect/mode.ts',
  'apiSoon in client/connect/brokerLink.ts',
  '(anonymous) in client/connect/brokerLink.ts',
  'brokerWorkerName in contract/brokerKey.ts',
];

interface FunctionEvent {
  kind: string;
  start: number;
  name: string;
}

async function runProbe(): Promise<{ events: FunctionEvent[]; source: string; output: string }> {
  const bundle = join(dir, 'boot.mjs');
  // Not minified, as an app's development build: esbuild keeps a `// path` line before each module, which says whose a
  // function is.
  await build({
    entryPoints: ['test/client/support/bootProbe.ts'],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'es2022',
    outfile: bundle,
    logLevel: 'error',
    plugins: [compiledAheadPlugin],
  });
  const log = join(dir, 'v8.log');
  const run = spawnSync(
    process.execPath,
    ['--log-function-events', `--logfile=${log}`, '--no-logfile-per-isolate', bundle],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`The probe failed: ${run.stderr}`);
  const lines = readFileSync(log, 'latin1').split('\n');
  const scriptId = lines
    .map((line) => line.split(','))
    .find((fields) => fields[0] === 'script-details' && fields[2]?.endsWith('boot.mjs'))?.[1];
  if (scriptId === undefined) throw new Error('V8 logged nothing of the probe script.');
  const events = lines
    .map((line) => line.split(','))
    .filter((fields) => fields[0] === 'function' && fields[2] === scriptId)
    // esbuild numbers a name that two modules share (`load2`): the name as written is without the number.
    .map((fields) => ({ kind: fields[1]!, start: Number(fields[3]), name: (fields[7] ?? '').replace(/\d+$/, '') }));
  return { events, source: readFileSync(bundle, 'utf8'), output: run.stdout };
}

/** The module a position of the bundle belongs to, from esbuild's `// path` lines. */
function moduleAt(source: string, position: number): string {
  const marks = [
    ...source.slice(0, position).matchAll(/^\/\/ ((?:client|contract|protocol|worker|test)\/[^\n]+\.tsx?)$/gm),
  ];
  return marks.at(-1)?.[1] ?? '(unknown)';
}

describe("compiled ahead: the first frame compiles the library's larger functions with the script", () => {
  it('creating the client, subscribing and reading the kept user compile none of them at their first call', async () => {
    const { events, source, output } = await runProbe();
    expect(JSON.parse(output.trim())).toEqual({ keptUserId: 'kept-user' });
    const begin = events.findIndex((event) => event.kind === 'first-execution' && event.name === 'firstFrameWork');
    const end = events.findIndex((event) => event.kind === 'first-execution' && event.name === 'afterFirstFrameWork');
    expect(begin).toBeGreaterThan(-1);
    expect(end).toBeGreaterThan(begin);
    const during = events.slice(begin, end);
    const library = (event: FunctionEvent) => !moduleAt(source, event.start).startsWith('test/');
    const ran = (event: FunctionEvent) => event.kind === 'first-execution' && library(event);
    // Each of them does run in that window (else the check below would pass on nothing).
    const ranNames = new Set(during.filter(ran).map((event) => event.name));
    expect(COMPILED_AHEAD.filter((name) => !ranNames.has(name)).map((name) => `${name} did not run`)).toEqual([]);
    const lazy = during
      .filter((event) => event.kind === 'parse-function' && library(event))
      .map((event) => `${event.name || '(anonymous)'} in ${moduleAt(source, event.start)}`);
    expect(
      COMPILED_AHEAD.filter((name) => lazy.some((entry) => entry.startsWith(`${name} in `))).map(
        (name) => `${name} compiled at its first call`,
      ),
    ).toEqual([]);
    // And nothing else: a function added to the path is compiled ahead, or listed here with why.
    expect([...new Set(lazy)].sort()).toEqual([...LEFT_LAZY].sort());
  });
});
