import { describe, expect, it } from 'vitest';
import { partialUserFromClaims, partialUserOfAccessToken } from '../../protocol/partialUser.js';

/** An unsigned JWT with these claims: only its payload is read. */
function tokenWith(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'ES256', typ: 'JWT' })}.${part(claims)}.c2lnbmF0dXJl`;
}

describe('the partial user of an access token', () => {
  it("reads today's claims into the User model's field names", () => {
    const user = partialUserOfAccessToken(
      tokenWith({
        sub: 'u-1',
        name: 'Ada',
        email: 'ada@example.com',
        email_verified: true,
        selected_team_id: 't-1',
        signed_up_at: 1_700_000_000,
        is_anonymous: false,
        is_restricted: true,
        restricted_reason: { type: 'email_not_verified' },
        requires_totp_mfa: true,
      }),
    );
    expect(user).toEqual({
      id: 'u-1',
      displayName: 'Ada',
      primaryEmail: 'ada@example.com',
      primaryEmailVerified: true,
      selectedTeamId: 't-1',
      signedUpAtMillis: 1_700_000_000_000,
      isAnonymous: false,
      isRestricted: true,
      restrictedReason: { type: 'email_not_verified' },
      requiresTotpMfa: true,
    });
  });

  it("fills what a v2.7 token or an anonymous user's leaves out, and names nobody without a subject", () => {
    expect(partialUserFromClaims({ sub: 'u-2' })).toEqual({
      id: 'u-2',
      displayName: null,
      primaryEmail: null,
      primaryEmailVerified: false,
      selectedTeamId: null,
      signedUpAtMillis: null,
      isAnonymous: false,
      isRestricted: false,
      restrictedReason: null,
      requiresTotpMfa: false,
    });
    expect(partialUserFromClaims({ sub: 'g', is_anonymous: true })).toMatchObject({
      isAnonymous: true,
      isRestricted: true,
      restrictedReason: { type: 'anonymous' },
    });
    // A reason the service adds later passes through; what is no reason at all is none.
    expect(partialUserFromClaims({ sub: 'x', restricted_reason: { type: 'a-later-reason' }, name: 42 })).toMatchObject({
      restrictedReason: { type: 'a-later-reason' },
      displayName: null,
    });
    expect(partialUserFromClaims({ sub: 'x', restricted_reason: 42 })?.restrictedReason).toBeNull();
    // UTF-8 in the claims, base64url without padding, as the service writes them.
    expect(partialUserOfAccessToken(tokenWith({ sub: 'u-3', name: 'Zoë 🦊 Ågren' }))?.displayName).toBe('Zoë 🦊 Ågren');
    expect(partialUserFromClaims({})).toBeNull();
    expect(partialUserOfAccessToken('a.bm90IGpzb24.c')).toBeNull();
    expect(partialUserOfAccessToken(tokenWith([1, 2] as unknown as Record<string, unknown>))).toBeNull();
    expect(partialUserOfAccessToken('not a token')).toBeNull();
  });
});
