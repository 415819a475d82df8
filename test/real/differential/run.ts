import { readdirSync, readFileSync } from 'node:fs';
import { compareExchanges, explanationOf, type Difference, type Explanation } from './compare.js';
import type { Exchange } from './exchange.js';
import { FlowContext, type Flow, type FlowSide, type ProjectKeys } from './flow.js';

export interface FlowResult {
  flow: string;
  covers: string;
  emulator: Exchange[];
  real: Exchange[];
  differences: Array<Difference & { explanation: string | null }>;
}

const NO_PROJECT: ProjectKeys = {
  projectId: '',
  publishableClientKey: '',
  secretServerKey: '',
  superSecretAdminKey: '',
};

/**
 * Runs one flow on both sides (the emulator's run alongside the real backend's) and compares them.
 * `recordedReal`: the real backend's exchanges of an earlier run, used instead of running it again
 * (for working on the emulator: its side takes seconds, the real backend's minutes).
 */
export async function runFlow(
  flow: Flow,
  emulator: FlowSide,
  real: FlowSide,
  explanations: readonly Explanation[],
  recordedReal?: Exchange[],
): Promise<FlowResult> {
  const sides = (recordedReal === undefined ? [emulator, real] : [emulator]).map(
    (side) => new FlowContext(side, NO_PROJECT, flow.name),
  );
  await Promise.all(sides.map((ctx) => flow.run(ctx)));
  const e = sides[0]!.recorder.exchanges;
  const r = recordedReal ?? sides[1]!.recorder.exchanges;
  const differences = compareExchanges(flow.name, e, r).map((d) => ({
    ...d,
    explanation: explanationOf(d, explanations)?.reason ?? null,
  }));
  return { flow: flow.name, covers: flow.covers, emulator: e, real: r, differences };
}

/** A path expression's templates: `${helper(…)}` becomes the helper's own template, any other `${…}` an `:id`. */
function templatesOf(expression: string, helpers: ReadonlyMap<string, string>): string[] {
  const expand = (template: string): string =>
    template
      .replace(/\$\{(\w+)\([^}]*\)\}/g, (whole, name: string) =>
        helpers.has(name) ? expand(helpers.get(name)!) : whole,
      )
      .replace(/\$\{[^}]*\}/g, ':id');
  const call = /^(\w+)\(/.exec(expression);
  if (call && helpers.has(call[1]!)) return [expand(helpers.get(call[1]!)!)];
  // A literal, or a choice between literals (`cond ? '/a' : '/b'`).
  return [...expression.matchAll(/(['`])(.*?)\1/g)]
    .map((m) => m[2]!)
    .filter((literal) => literal.startsWith('/') || literal.startsWith('${'))
    .map(expand);
}

/**
 * The requests our client makes, read from `protocol/endpoints/*.ts` (`method: 'X', path: …`, on one
 * line or several; the path a literal, a template, a choice of literals or a file's own path helper
 * such as `channelPath(…)`), as routes with ids as `:id`: what the differential check must send at least once.
 */
export function clientRoutes(endpointsDir: URL): string[] {
  const routes = new Set<string>();
  for (const file of readdirSync(endpointsDir).filter((f) => f.endsWith('.ts'))) {
    const source = readFileSync(new URL(file, endpointsDir), 'utf8');
    const helpers = new Map(
      [...source.matchAll(/function (\w+)\([^)]*\): string \{\s*return (['`])(.*?)\2;\s*\}/g)].map(
        (m) => [m[1]!, m[3]!] as const,
      ),
    );
    const calls = [
      ...source.matchAll(
        /method: '([A-Z]+)',\s*path: ([^\n]*?)(?:,\s*(?:body|query|user|sendRefreshToken)\b|,?\s*\}\)|,\s*$)/gm,
      ),
    ];
    // Every request of the file is read, or the check would pass over a route it cannot parse.
    if (calls.length !== source.split("method: '").length - 1)
      throw new Error(`${file}: ${calls.length} of its requests read; write each as \`method: 'X', path: …\``);
    for (const match of calls) {
      const found = templatesOf(match[2]!.trim(), helpers);
      if (found.length === 0) throw new Error(`${file}: cannot read the path of "${match[0]}"`);
      for (const path of found) routes.add(`${match[1]} ${path}`);
    }
  }
  // The token endpoint is called through oauth4webapi (protocol/tokenGrant.ts), not a `path:`.
  routes.add('POST /auth/oauth/token');
  return [...routes].sort();
}

/** Whether an exchanged route (ids as `:id`, `me` kept) answers a client route template. */
export function routeMatches(template: string, exchanged: string): boolean {
  const [tm, tp] = template.split(' ') as [string, string];
  const [em, ep] = exchanged.split(' ') as [string, string];
  if (tm !== em) return false;
  const t = tp.split('/');
  const e = ep.split('/');
  return (
    t.length === e.length &&
    t.every((segment, i) => segment === e[i] || (segment === ':id' && e[i] !== '' && e[i] !== undefined))
  );
}
