import { InvalidArgumentError } from '../protocol/errors/errors.js';

/** What a fault does to a matching request. */
export type FaultEffect =
  | { type: 'latency'; ms: number }
  | { type: 'status'; status: 429 | 500 | 503; retry_after?: string }
  | { type: 'loop-detected' }
  /** Close the connection without answering, before the handler runs or after (the write happened). */
  | { type: 'drop'; phase?: 'before' | 'after' };

export interface FaultRuleInput {
  /** A path pattern where `*` matches any characters, e.g. `/api/v1/users/*`. */
  path: string;
  method?: string;
  /** Chance per matching request, 0–1. */
  probability?: number;
  /** Fire on the next N matching requests, then stop. */
  count?: number;
  effect: FaultEffect;
}

export interface FaultRule extends FaultRuleInput {
  id: string;
  injected: number;
}

/** A small seeded PRNG (mulberry32) so a chaos run can be replayed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fail(argument: string, message: string): never {
  throw new InvalidArgumentError(argument, message);
}

/** Checks an untrusted rule (from `POST /emulator/faults`) field by field. */
export function parseFaultRule(value: unknown, at: string): FaultRuleInput {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(at, `${at} must be an object.`);
  const r = value as Record<string, unknown>;
  const known = new Set(['path', 'method', 'probability', 'count', 'effect']);
  for (const key of Object.keys(r)) if (!known.has(key)) fail(`${at}.${key}`, `${at} has an unknown field "${key}".`);
  if (typeof r.path !== 'string' || r.path === '' || r.path.length > 500)
    fail(`${at}.path`, `${at}.path must be a non-empty path pattern.`);
  if (r.method !== undefined && (typeof r.method !== 'string' || !/^[A-Za-z]+$/.test(r.method)))
    fail(`${at}.method`, `${at}.method must be an HTTP method.`);
  if (
    r.probability !== undefined &&
    (typeof r.probability !== 'number' || !(r.probability >= 0 && r.probability <= 1))
  ) {
    fail(`${at}.probability`, `${at}.probability must be a number from 0 to 1.`);
  }
  if (r.count !== undefined && (typeof r.count !== 'number' || !Number.isInteger(r.count) || r.count < 1))
    fail(`${at}.count`, `${at}.count must be a positive integer.`);
  if (r.probability === undefined && r.count === undefined) fail(at, `${at} needs a probability or a count.`);
  const e = r.effect as Record<string, unknown> | undefined;
  if (typeof e !== 'object' || e === null) fail(`${at}.effect`, `${at}.effect must be an object.`);
  let effect: FaultEffect;
  switch (e.type) {
    case 'latency':
      if (typeof e.ms !== 'number' || !(e.ms >= 0 && e.ms <= 60_000))
        fail(`${at}.effect.ms`, `${at}.effect.ms must be 0–60000.`);
      effect = { type: 'latency', ms: e.ms };
      break;
    case 'status':
      if (e.status !== 429 && e.status !== 500 && e.status !== 503)
        fail(`${at}.effect.status`, `${at}.effect.status must be 429, 500 or 503.`);
      if (e.retry_after !== undefined && typeof e.retry_after !== 'string')
        fail(`${at}.effect.retry_after`, `${at}.effect.retry_after must be a string.`);
      effect = {
        type: 'status',
        status: e.status,
        ...(typeof e.retry_after === 'string' ? { retry_after: e.retry_after } : {}),
      };
      break;
    case 'loop-detected':
      effect = { type: 'loop-detected' };
      break;
    case 'drop':
      if (e.phase !== undefined && e.phase !== 'before' && e.phase !== 'after')
        fail(`${at}.effect.phase`, `${at}.effect.phase must be "before" or "after".`);
      effect = { type: 'drop', phase: (e.phase as 'before' | 'after' | undefined) ?? 'before' };
      break;
    default:
      fail(`${at}.effect.type`, `${at}.effect.type must be latency, status, loop-detected or drop.`);
  }
  return {
    path: r.path,
    ...(typeof r.method === 'string' ? { method: r.method.toUpperCase() } : {}),
    ...(typeof r.probability === 'number' ? { probability: r.probability } : {}),
    ...(typeof r.count === 'number' ? { count: r.count } : {}),
    effect,
  };
}

function globToRegExp(pattern: string): RegExp {
  return new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
}

/** The fault rules in force. The first matching rule that fires wins. */
export class Faults {
  private rules: Array<FaultRule & { regex: RegExp }> = [];
  private random: () => number = Math.random;
  private nextId = 1;

  add(inputs: FaultRuleInput[], seed?: number): FaultRule[] {
    if (seed !== undefined) this.random = seeded(seed);
    const added = inputs.map((input) => ({
      ...input,
      id: `fault-${this.nextId++}`,
      injected: 0,
      regex: globToRegExp(input.path),
    }));
    this.rules.push(...added);
    return added.map(({ regex: _regex, ...rule }) => rule);
  }

  clear(): void {
    this.rules = [];
    this.random = Math.random;
  }

  list(): FaultRule[] {
    return this.rules.map(({ regex: _regex, ...rule }) => rule);
  }

  /** The effect to apply to this request, if any rule fires. */
  pick(method: string, pathname: string): FaultEffect | null {
    for (const rule of this.rules) {
      if (rule.method !== undefined && rule.method !== method) continue;
      if (!rule.regex.test(pathname)) continue;
      if (rule.count !== undefined) {
        if (rule.count <= 0) continue;
        if (rule.probability !== undefined && this.random() >= rule.probability) continue;
        rule.count--;
      } else if (this.random() >= (rule.probability ?? 0)) {
        continue;
      }
      rule.injected++;
      return rule.effect;
    }
    return null;
  }
}
