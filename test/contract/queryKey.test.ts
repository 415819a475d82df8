import { describe, expect, it } from 'vitest';
import { hashQueryKey } from '../../contract/queryKey.js';

describe('hashQueryKey: one key per query, on both sides of the connection', () => {
  it('does not depend on the order of parameters, and an undefined parameter is an absent one', () => {
    const teamId = '6f1c1a52-3c1e-4b8e-9a3f-0c9d1f3b2a11';
    expect(hashQueryKey({ kind: 'permissions', teamId, recursive: true } as never)).toBe(
      hashQueryKey({ recursive: true, teamId, kind: 'permissions' } as never),
    );
    expect(hashQueryKey({ kind: 'admin.project', projectId: undefined } as never)).toBe(
      hashQueryKey({ kind: 'admin.project' }),
    );
  });

  it('tells different queries apart, and is structured ([kind, params]) rather than a text format someone parses', () => {
    const keys = new Set([
      hashQueryKey({ kind: 'teams' }),
      hashQueryKey({ kind: 'team', teamId: 'a' } as never),
      hashQueryKey({ kind: 'team', teamId: 'b' } as never),
      hashQueryKey({ kind: 'teamMembers', teamId: 'a' } as never),
      // A value that looks like another key's text stays a value.
      hashQueryKey({ kind: 'team', teamId: 'a","kind":"teams' } as never),
    ]);
    expect(keys.size).toBe(5);
    expect(JSON.parse(hashQueryKey({ kind: 'team', teamId: 'a' } as never))).toEqual(['team', { teamId: 'a' }]);
  });
});
