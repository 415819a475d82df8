/**
 * Which of our suites run in the real-service lane against the real backend, and why the others do
 * not. The lane's end-to-end project runs every test/e2e file listed here without `notRunning`, each
 * scenario on a fresh project of the real backend (test/real/e2e/support/onRealBackend.ts), except the
 * scenarios named under `skipped`; test/real/REPORT.md prints this table with the run's counts.
 *
 * A scenario's reason is what of the emulator it uses that a real service does not have. The
 * emulator's own endpoints and handles are: its clock (moved to expire tokens and sessions in no
 * time), its statistics (requests and token grants counted), its mailbox (e-mails read by template,
 * at once), fault injection and stopping it, its mock OAuth provider, and the seeded owner of its
 * `internal` project.
 */
const CLOCK = "moves the emulator's clock to expire access tokens or sessions at once";
const STATS = "counts the service's requests or token grants with the emulator's statistics";
const MAILBOX = "reads e-mails from the emulator's mailbox by template";
const STOPS = 'stops the emulator or makes it unreachable under open tabs';

export interface SuitePlan {
  /** A file of test/e2e/. */
  file: string;
  /** Why none of it runs against the real backend (the file is not loaded there). */
  notRunning?: string;
  /** Scenarios that do not run there: a part of the scenario's name that no other scenario's has → why. */
  skipped?: Readonly<Record<string, string>>;
}

export const E2E_SUITES: readonly SuitePlan[] = [
  {
    file: 'account.test.ts',
    skipped: {
      '15a. forgotten password': MAILBOX,
      '15b. e-mail verification': MAILBOX,
      '15c. contact channels': MAILBOX,
    },
  },
  {
    file: 'admin.test.ts',
    notRunning:
      "signs the demo's admin area into the emulator's seeded owner of the `internal` project, who manages the demo project",
  },
  { file: 'backForwardCache.test.ts' },
  { file: 'brokerState.test.ts' },
  { file: 'connectivity.test.ts', skipped: { 'tabs reloaded while the service is gone': STOPS } },
  { file: 'devtools.test.ts', skipped: { 'two tabs with the devtools open': `${STATS}, and ${CLOCK}` } },
  {
    file: 'fallbacks.test.ts',
    skipped: {
      '11a. SharedWorker removed': `${CLOCK}, and ${STATS}`,
      '11b. SharedWorker and service workers unavailable': `${CLOCK}, and ${STATS}`,
    },
  },
  { file: 'cliLogin.test.ts' },
  { file: 'features.test.ts' },
  { file: 'hostilePage.test.ts', skipped: { "the brokers' channel takes hints": STATS } },
  { file: 'instantBoot.test.ts', notRunning: STOPS },
  { file: 'invitations.test.ts', notRunning: MAILBOX },
  { file: 'magicLink.test.ts', notRunning: MAILBOX },
  { file: 'memoryTokens.test.ts' },
  {
    file: 'mfa.test.ts',
    notRunning:
      "moves the emulator's clock to the start of a TOTP period, so that a code stays good for the whole step",
  },
  {
    file: 'oauth.test.ts',
    notRunning:
      "signs in through the emulator's mock OAuth provider and its consent page (the real backend would need GitHub itself)",
  },
  {
    file: 'officialSdk.test.ts',
    notRunning:
      'has its own harness, which starts an emulator for the official SDK page; of the SDKs it checks, 2.8.108 speaks x-hexclave-* only, which this backend snapshot refuses',
  },
  { file: 'passkeys.test.ts' },
  { file: 'redirects.test.ts' },
  { file: 'secrets.test.ts', notRunning: CLOCK },
  {
    file: 'session.test.ts',
    skipped: { '3. short-lived access tokens': `runs the emulator with 26-second access tokens, and ${STATS}` },
  },
  {
    file: 'shop.test.ts',
    notRunning:
      "completes the purchase on the emulator's own checkout page (the service's is its dashboard's, which the lane does not run); test/features/payments.test.ts makes the same purchase on the real backend through its test-mode API",
  },
  { file: 'signOut.test.ts', notRunning: `${CLOCK} (a session revoked elsewhere is seen at the next renewal)` },
  {
    file: 'tabs.test.ts',
    skipped: {
      '2d. a refetch the killed SharedWorker never answered':
        "holds the service's answer with the emulator's fault injection, so that the worker is killed while it waits",
    },
  },
  { file: 'teams.test.ts' },
];

/** Why the scenario `name` does not run against the real backend, or null when it does. */
export function whyNotOnRealBackend(name: string): string | null {
  for (const suite of E2E_SUITES) {
    for (const [part, why] of Object.entries(suite.skipped ?? {})) if (name.includes(part)) return why;
  }
  return null;
}

/**
 * Our other suites, and why they do not run against the real backend. A suite runs there when it is
 * written over a service target (test/support/serviceTarget.ts); these are written over the emulator.
 */
export const OTHER_SUITES: ReadonlyArray<{ suite: string; runs: string; why: string }> = [
  { suite: 'test/server/serviceTarget.test.ts', runs: 'all', why: 'written over a service target' },
  {
    suite: 'test/features/*.test.ts (the scenarios of test/support/features/)',
    runs: 'all',
    why: 'written over a service target',
  },
  {
    suite: 'test/real/e2e/flows.test.ts',
    runs: 'all',
    why: "the lane's own Chromium flows: password, OTP through the mail sink, teams, sign-out, renewal after the real token expiry",
  },
  {
    suite: 'test/worker, test/client (jsdom), test/reliability',
    runs: 'none',
    why: "written over a fresh emulator (useEmulator, its seeded demo user): most move its clock (expiry, throttles), inject faults, count requests with its statistics or read its store; the others test the broker's own boundary, where the service only answers sign-ins",
  },
  {
    suite: 'test/emulator',
    runs: 'none',
    why: "the emulator's own tests (its internals, its dev endpoints); the differential check compares it with the real backend instead",
  },
  {
    suite: 'test/engines',
    runs: 'none',
    why: 'their harness (test/engines/support/stage.ts) starts an emulator for each scenario in each engine, and the offline scenarios make it unreachable; their Chromium counterparts in test/e2e run here',
  },
  {
    suite: 'test/extension',
    runs: 'none',
    why: 'the demo extension is built against the emulator; most scenarios count its requests or stop it',
  },
  {
    suite: 'test/protocol, test/contract, test/architecture, test/package',
    runs: 'none',
    why: 'no service (stubbed fetch, static checks, packed tarballs)',
  },
];
