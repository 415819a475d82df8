/**
 * The official JavaScript SDK against the emulator, from Node: the oldest and the newest published
 * `@stackframe/js` releases that speak the `x-stack-*` protocol (2.7.23 and 2.8.102), and 2.8.108,
 * which sends `x-hexclave-*` headers and reads either family back. The later releases check every
 * access token's claims before they keep it, so this is where the emulator's tokens are held to it.
 * The browser side (CORS) is test/e2e/officialSdk.test.ts.
 */
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { StackClientApp as HexclaveStackClientApp } from 'stackframe-js-hexclave';
import { StackClientApp as NewestStackClientApp } from 'stackframe-js-newest';
import { StackClientApp as OldestStackClientApp } from 'stackframe-js-oldest';
import type { RunningEmulator } from '../../emulator/index.js';
import { uniqueEmail, useEmulator } from '../support/emulator.js';
import { OFFICIAL_SDKS, type OfficialSdkRelease } from '../support/officialSdk.js';
import { runSdkFlow, type SdkAppClass, type SdkFlowResult } from '../support/officialSdkFlow.js';

const emulator = useEmulator();

// Each release's own types differ; the flow needs only the methods SdkAppClass names.
const releases: Record<OfficialSdkRelease['alias'], SdkAppClass> = {
  'stackframe-js-oldest': OldestStackClientApp as unknown as SdkAppClass,
  'stackframe-js-newest': NewestStackClientApp as unknown as SdkAppClass,
  'stackframe-js-hexclave': HexclaveStackClientApp as unknown as SdkAppClass,
};

/** The flow with an in-memory token store, moving the emulator's clock in-process. */
function sdkFlow(sdk: OfficialSdkRelease, em: RunningEmulator, email: string): Promise<SdkFlowResult> {
  const keys = em.projects.demo;
  return runSdkFlow(releases[sdk.alias], {
    baseUrl: em.url,
    projectId: keys.id,
    publishableClientKey: keys.publishableClientKey,
    tokenStore: 'memory',
    email,
    password: 'correct horse battery',
    verificationCallbackUrl: 'http://localhost:5173/handler/email-verification',
    shiftEmulatorClock: async (millis) => em.env.clock.advance(millis),
    expiredByMillis: em.env.accessTokenTtlMillis + 60_000,
  });
}

describe.each(OFFICIAL_SDKS)('@stackframe/js $version', (sdk) => {
  it('signs up, reads and updates the user, creates and lists teams, signs out, signs in again and refreshes an expired token', async () => {
    const em = emulator();
    const email = uniqueEmail('sdk');
    const stats = () => em.env.stats.snapshot();
    const before = stats();
    const flow = await sdkFlow(sdk, em, email);

    // Every step answered as the SDK expects (it throws or returns an error result otherwise).
    expect(flow.signedUpUser).toMatchObject({ primaryEmail: email, id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(flow.updatedDisplayName).toBe(`Renamed ${email}`);
    expect(flow.teamIds).toEqual([flow.createdTeamId]);
    expect(flow.signedOutUser).toBeNull();
    expect(flow.signedInUser).toMatchObject({ primaryEmail: email, id: flow.signedUpUser.id });
    // The token kept from the sign-in had already expired: the SDK renewed it through the token
    // endpoint before reading the user, for the same session.
    expect(decodeJwt(flow.signedInAccessToken).exp! * 1000).toBeGreaterThan(Date.now());
    const after = stats();
    expect(after.token_grants.refresh_token - before.token_grants.refresh_token).toBeGreaterThanOrEqual(1);
    const count = (route: string, status = '200') =>
      (after.requests[route]?.[status] ?? 0) - (before.requests[route]?.[status] ?? 0);
    expect(count('POST /auth/password/sign-up')).toBe(1);
    expect(count('POST /auth/password/sign-in')).toBe(1);
    expect(count('DELETE /auth/sessions/current')).toBe(1);
    expect(count('GET /users/me')).toBeGreaterThanOrEqual(2);
    expect(count('PATCH /users/me')).toBeGreaterThanOrEqual(1);
    expect(count('POST /teams', '201') + count('POST /teams')).toBe(1);
    expect(count('GET /teams')).toBeGreaterThanOrEqual(1);
    // The session signed out is gone on the emulator; the signed-in one remains.
    const project = em.env.store.project(em.projects.demo.id)!;
    const sessions = Object.values(project.sessions).filter((s) => s.user_id === flow.signedUpUser.id);
    expect(sessions.map((s) => s.id)).toEqual([decodeJwt(flow.signedInAccessToken).refresh_token_id]);
    // Nothing the SDK sent was refused by the emulator's validation.
    expect(
      Object.entries(after.requests).filter(([, byStatus]) => Object.keys(byStatus).some((status) => status === '400')),
    ).toEqual(
      Object.entries(before.requests).filter(([, byStatus]) =>
        Object.keys(byStatus).some((status) => status === '400'),
      ),
    );
  });
});
