import type { EmulatorClock } from './clock.js';
import type { ExternalOAuthProvider } from './dev/externalOAuthProvider.js';
import type { Faults } from './faults.js';
import type { Mailbox } from './mailbox.js';
import type { Store } from './state/store.js';
import type { Stats } from './stats.js';

/** Everything a handler may use besides the request. One per running emulator. */
export interface EmulatorEnv {
  store: Store;
  clock: EmulatorClock;
  mailbox: Mailbox;
  stats: Stats;
  faults: Faults;
  /** Lifetime of issued access tokens (default 10 minutes, like the service). */
  accessTokenTtlMillis: number;
  /** Where the emulator is listening, e.g. `http://127.0.0.1:8102` (known once it listens). */
  baseUrl: string;
  /** How long `send-reset-code` stalls for an unknown e-mail (the service: 2–3 s, so timing leaks nothing). */
  unknownEmailDelayMillis: () => number;
  /** Every passkey challenge is the development service's fixed one (`MOCK`), as with its testing switch. */
  hardcodedPasskeyChallenge: boolean;
  /** The OpenID provider that plays every shared OAuth provider, or null for the emulator's own mock provider. */
  externalOAuthProvider: ExternalOAuthProvider | null;
  /** Origins whose pages may use server and admin access besides the emulator's own (`allowOrigins`; http/pageAccess.ts). */
  allowedOrigins: readonly string[];
  /** Log a line (silent unless the emulator runs verbose). */
  log: (line: string) => void;
}
