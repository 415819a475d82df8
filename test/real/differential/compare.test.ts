import { describe, expect, it } from 'vitest';
import { compareExchanges, explanationOf } from './compare.js';
import { EXPLANATIONS } from './explained.js';
import { keyPaths, routeOf, type Exchange } from './exchange.js';
import { clientRoutes, routeMatches } from './run.js';

/** The differential check's own parts, in `npm test` (the check itself needs the real backend). */
const exchange = (over: Partial<Exchange> = {}): Exchange => ({
  label: 'step',
  method: 'GET',
  route: '/users/me',
  status: 200,
  knownError: null,
  headers: { 'content-type': 'application/json;charset=utf-8' },
  bodyKeys: ['id', 'selected_team', 'selected_team.id'],
  bodyKind: 'object',
  ...over,
});

describe('the differential check', () => {
  it('reads key paths with array items merged, and routes with ids as :id', () => {
    expect(keyPaths({ a: 1, b: { c: [{ d: 1 }, { e: 2 }] }, f: [] })).toEqual([
      'a',
      'b',
      'b.c',
      'b.c[]',
      'b.c[].d',
      'b.c[].e',
      'f',
      'f[]',
    ]);
    expect(routeOf('http://x/api/v1/teams/0b1f931e-f2a1-428e-b594-d3b6769c6d91/members?x=1')).toBe(
      '/teams/:id/members',
    );
    expect(routeOf('http://x/api/v1')).toBe('/');
  });

  it('finds every kind of difference, and compares body keys only on answers of the same code', () => {
    const found = compareExchanges(
      'f',
      [
        exchange(),
        exchange({ label: 'only here' }),
        exchange({ label: 'error', status: 400, knownError: 'A', bodyKeys: ['code'] }),
      ],
      [
        exchange({ bodyKeys: ['id', 'is_anonymous'], headers: { 'content-type': 'text/plain' } }),
        exchange({ label: 'error', status: 401, knownError: 'B', bodyKeys: ['code', 'details'] }),
        exchange({ label: 'new' }),
      ],
    );
    expect(found.map((d) => `${d.label} ${d.kind} ${d.subject}`.trim())).toEqual([
      'step header content-type',
      'step key-only-in-emulator selected_team',
      'step key-only-in-emulator selected_team.id',
      'step key-only-in-real is_anonymous',
      'only here exchange-only-in-emulator',
      'error status',
      'error known-error',
      'new exchange-only-in-real',
    ]);
  });

  it('explains the x-hexclave-* header family only when it is the whole difference', () => {
    const cors = (emulator: string, real: string) =>
      compareExchanges(
        'f',
        [exchange({ headers: { 'access-control-expose-headers': emulator } })],
        [exchange({ headers: { 'access-control-expose-headers': real } })],
      )[0]!;
    expect(
      explanationOf(
        cors('content-type, x-hexclave-known-error, x-stack-known-error', 'content-type, x-stack-known-error'),
        EXPLANATIONS,
      ),
    ).toBeDefined();
    expect(
      explanationOf(cors('content-type, x-hexclave-known-error', 'content-type, x-stack-known-error'), EXPLANATIONS),
    ).toBeUndefined();
    expect(
      explanationOf(
        cors('content-type, x-stack-known-error, x-other', 'content-type, x-stack-known-error'),
        EXPLANATIONS,
      ),
    ).toBeUndefined();
  });

  it("lists our client's requests from protocol/endpoints, the token endpoint included", () => {
    const routes = clientRoutes(new URL('../../../protocol/endpoints/', import.meta.url));
    expect(routes).toContain('DELETE /internal/projects/current');
    expect(routes).toContain('POST /auth/oauth/token');
    expect(routes).toContain('POST /contact-channels/:id/:id/send-verification-code');
    // Written over several lines, through a file's path helper, or as a choice of two paths.
    expect(routes).toContain('PATCH /emails/notification-preference/:id/:id');
    expect(routes).toContain('POST /auth/passkey/sign-in');
    expect(routes).toContain('DELETE /contact-channels/:id/:id');
    expect(routes).toContain('POST /project-permissions/:id/:id');
    expect(routes).toContain('DELETE /team-permissions/:id/:id/:id');
    expect(routes).toEqual(expect.arrayContaining(['GET /internal/projects/current', 'GET /projects/current']));
    expect(routes.length).toBeGreaterThan(90);
    expect(routeMatches('GET /teams/:id', 'GET /teams/:id')).toBe(true);
    expect(
      routeMatches('DELETE /team-permission-definitions/:id', 'DELETE /team-permission-definitions/read_reports'),
    ).toBe(true);
    expect(routeMatches('GET /teams/:id', 'GET /teams')).toBe(false);
  });
});
