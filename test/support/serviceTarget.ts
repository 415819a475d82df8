import { readFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../emulator/index.js';

/**
 * The service a test talks to: the emulator (the default), or the real Stack Auth backend that the
 * real-service lane (`npm run test:real`) started and described in a file named by
 * `AUTHBROKER_SERVICE_TARGET=real:<file>`. Tests written over a target use only the REST API and
 * the mailbox, never the emulator's own endpoints (faults, clock, statistics), so they run against both.
 */
export interface ProjectTarget {
  /** The service's base URL (`/api/v1` is appended by clients). */
  baseUrl: string;
  projectId: string;
  publishableClientKey: string;
  secretServerKey: string;
  superSecretAdminKey: string;
}

export interface ServiceTarget extends ProjectTarget {
  kind: 'emulator' | 'real';
  /** The `internal` project's publishable key (its id is `internal` on both). */
  internalPublishableClientKey: string;
  /** The e-mails the service sent to `to`, oldest first. */
  mail(to: string): Promise<MailMessage[]>;
  /**
   * Waits (polling, at most `timeoutMillis`, 2 minutes unless given) for an e-mail to `to` whose subject or text
   * matches.
   */
  waitForMail(to: string, match?: RegExp, timeoutMillis?: number): Promise<MailMessage>;
  /** Headers every request to this target should carry (the real backend's development rate limit off). */
  extraRequestHeaders: Readonly<Record<string, string>>;
  /** The emulator, when the target is one (for the few emulator-only checks a shared test may add). */
  emulator: RunningEmulator | null;
  stop(): Promise<void>;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string | null;
}

/** What the lane writes for the tests (`.artifacts/real/target.json`). */
export interface RealTargetFile extends ProjectTarget {
  internalPublishableClientKey: string;
  mailboxUrl: string;
  /** The access-token lifetime the backend runs with, in seconds. */
  accessTokenSeconds: number;
}

/** Any value turns off the development backend's artificial rate limit and delays. */
export const REAL_BACKEND_HEADERS: Readonly<Record<string, string>> = {
  'x-stack-disable-artificial-development-delay': 'yes',
};

const TARGET_ENV = 'AUTHBROKER_SERVICE_TARGET';

/** The real backend's description when the lane runs this test, else null. */
export function realTargetFile(): RealTargetFile | null {
  const value = process.env[TARGET_ENV];
  if (value === undefined || value === '' || value === 'emulator') return null;
  if (!value.startsWith('real:'))
    throw new Error(`${TARGET_ENV} must be "emulator" or "real:<file>", not ${JSON.stringify(value)}.`);
  return JSON.parse(readFileSync(value.slice('real:'.length), 'utf8')) as RealTargetFile;
}

export const targetKind: 'emulator' | 'real' = realTargetFile() === null ? 'emulator' : 'real';

async function pollMail(
  read: () => Promise<MailMessage[]>,
  to: string,
  match: RegExp | undefined,
  timeoutMillis: number,
): Promise<MailMessage> {
  const deadline = Date.now() + timeoutMillis;
  for (;;) {
    const found = (await read())
      .filter((m) => match === undefined || match.test(m.subject) || match.test(m.text))
      .at(-1);
    if (found) return found;
    if (Date.now() > deadline)
      throw new Error(`No e-mail to ${to}${match ? ` matching ${match}` : ''} within ${timeoutMillis} ms.`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function targetOf(base: Omit<ServiceTarget, 'waitForMail'>): ServiceTarget {
  return {
    ...base,
    waitForMail: (to, match, timeoutMillis = 120_000) => pollMail(() => base.mail(to), to, match, timeoutMillis),
  };
}

/** The real backend from the lane's file. */
export function realTarget(file: RealTargetFile): ServiceTarget {
  return targetOf({
    kind: 'real',
    baseUrl: file.baseUrl,
    projectId: file.projectId,
    publishableClientKey: file.publishableClientKey,
    secretServerKey: file.secretServerKey,
    superSecretAdminKey: file.superSecretAdminKey,
    internalPublishableClientKey: file.internalPublishableClientKey,
    extraRequestHeaders: REAL_BACKEND_HEADERS,
    emulator: null,
    async mail(to) {
      const response = await fetch(`${file.mailboxUrl}/messages?to=${encodeURIComponent(to)}`);
      if (!response.ok) throw new Error(`mail sink: ${response.status}`);
      return ((await response.json()) as Array<{ subject: string; text: string; html: string | null }>).map((m) => ({
        to,
        subject: m.subject,
        text: m.text,
        html: m.html,
      }));
    },
    stop: async () => undefined,
  });
}

/** A fresh emulator as a target (its demo project). */
export async function emulatorTarget(options: EmulatorOptions = {}): Promise<ServiceTarget> {
  const emulator = await startEmulator({ port: 0, ...options });
  const { demo, internal } = emulator.projects;
  return targetOf({
    kind: 'emulator',
    baseUrl: emulator.url,
    projectId: demo.id,
    publishableClientKey: demo.publishableClientKey,
    secretServerKey: demo.secretServerKey,
    superSecretAdminKey: demo.superSecretAdminKey,
    internalPublishableClientKey: internal.publishableClientKey,
    extraRequestHeaders: {},
    emulator,
    async mail(to) {
      const response = await fetch(`${emulator.mailboxUrl}/mailbox?to=${encodeURIComponent(to)}`);
      if (!response.ok) throw new Error(`emulator mailbox: ${response.status}`);
      return ((await response.json()) as { items: Array<{ subject: string; text: string; html: string }> }).items.map(
        (m) => ({ to, subject: m.subject, text: m.text, html: m.html }),
      );
    },
    stop: () => emulator.stop(),
  });
}

/** The target this run names: the real backend in the lane, else a fresh emulator. */
export async function startServiceTarget(options: EmulatorOptions = {}): Promise<ServiceTarget> {
  const file = realTargetFile();
  return file === null ? emulatorTarget(options) : realTarget(file);
}

/** The run's target for a file's tests, started before them and stopped after. */
export function useServiceTarget(options: EmulatorOptions = {}): () => ServiceTarget {
  let target: ServiceTarget | undefined;
  beforeAll(async () => {
    target = await startServiceTarget(options);
  });
  afterAll(async () => {
    await target?.stop();
  });
  return () => {
    if (!target) throw new Error('The service target has not started yet (use it inside a test or hook).');
    return target;
  };
}
