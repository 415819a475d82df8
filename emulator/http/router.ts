import type { Handler, RouteOptions } from './types.js';

interface Route {
  method: string;
  pattern: string;
  segments: string[];
  handler: Handler;
  write: boolean;
}

export type RouteMatch =
  | { kind: 'found'; handler: Handler; params: Record<string, string>; routeKey: string; write: boolean }
  | { kind: 'method-not-allowed' }
  | { kind: 'not-found' };

/** Routes by method and path pattern (`/users/:user_id`); static segments win over parameters. */
export class Router {
  private routes: Route[] = [];

  add(method: string | string[], pattern: string, handler: Handler, options: RouteOptions = {}): void {
    for (const m of Array.isArray(method) ? method : [method]) {
      this.routes.push({ method: m, pattern, segments: split(pattern), handler, write: options.write ?? m !== 'GET' });
    }
    // More static segments first, so `/users/me` is tried before `/users/:user_id`.
    this.routes.sort((a, b) => staticScore(b) - staticScore(a));
  }

  match(method: string, path: string): RouteMatch {
    const parts = split(path);
    let pathMatched = false;
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (params === null) continue;
      pathMatched = true;
      if (route.method === method)
        return {
          kind: 'found',
          handler: route.handler,
          params,
          routeKey: `${route.method} ${route.pattern}`,
          write: route.write,
        };
    }
    return pathMatched ? { kind: 'method-not-allowed' } : { kind: 'not-found' };
  }
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

function staticScore(route: Route): number {
  return route.segments.reduce((score, s, i) => score + (s.startsWith(':') ? 0 : 2 ** (10 - Math.min(i, 10))), 0);
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | null {
  if (pattern.length !== parts.length) return null;
  const params: Record<string, string> = Object.create(null) as Record<string, string>;
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i]!;
    let actual: string;
    try {
      actual = decodeURIComponent(parts[i]!);
    } catch {
      return null;
    }
    if (expected.startsWith(':')) params[expected.slice(1)] = actual;
    else if (expected !== actual) return null;
  }
  return params;
}
