import { join } from 'node:path';
import { pumpEmailQueue } from '../real/emailQueue.js';
import { EMAIL_RENDERING_MODULES, startRenderSandbox } from '../real/renderSandbox.js';
import { realBackendWorkFolder } from '../real/workFolder.js';
import { startInbucketSink } from './inbucketSink.js';
import { answers, log, runToEnd, startProcess, waitForUrl, type Started } from './processes.js';
import { port, ROOT, STACK_DEVELOPMENT_KEYS, type TargetName } from './suite.js';

/**
 * The services a target is made of, started for a run and stopped after it: the API (a fresh
 * emulator, or the real backend of scripts/real), Inbucket's mail API, and Stack Auth's own mock
 * OAuth server from the exported repository, which plays every shared OAuth provider for both.
 */

export interface RunningTarget {
  /** `localhost:PREFIX02`, as the suite reaches it. */
  apiUrl: string;
  stop(): Promise<void>;
}

interface Context {
  prefix: string;
  /** The exported workspace. */
  workDir: string;
  /** Where logs go. */
  artifacts: string;
}

/** Stack Auth's mock OAuth server (an OpenID provider) on PREFIX14, from the exported repository. */
async function startMockOAuthServer(context: Context): Promise<Started> {
  const url = `http://localhost:${port(context.prefix, '14')}`;
  if (await answers(`${url}/.well-known/openid-configuration`))
    throw new Error(`something already answers on ${url}: stop it, or choose another SERVICE_SUITE_PORT_PREFIX`);
  const server = startProcess(join(context.workDir, 'node_modules/.bin/tsx'), ['src/index.ts'], {
    cwd: join(context.workDir, 'apps/mock-oauth-server'),
    env: { ...process.env, NEXT_PUBLIC_STACK_PORT_PREFIX: context.prefix, PORT: String(port(context.prefix, '14')) },
    logFile: join(context.artifacts, `mock-oauth-${context.prefix}.log`),
  });
  await waitForUrl(`${url}/.well-known/openid-configuration`, 60_000, server);
  return server;
}

/**
 * A fresh emulator, started from its command line as a user would, with the options that make it
 * answer as the development service does for this suite (emulator/README.md).
 */
async function startEmulatorTarget(context: Context): Promise<RunningTarget> {
  const apiUrl = `http://localhost:${port(context.prefix, '02')}`;
  if (await answers(apiUrl)) throw new Error(`something already answers on ${apiUrl}`);
  const oauth = await startMockOAuthServer(context);
  const emulator = startProcess(
    join(ROOT.pathname, 'node_modules/.bin/tsx'),
    [
      'emulator/cli.ts',
      '--ephemeral',
      '--port',
      String(port(context.prefix, '02')),
      '--url-host',
      'localhost',
      '--inbucket-port',
      String(port(context.prefix, '05')),
      '--internal-publishable-client-key',
      STACK_DEVELOPMENT_KEYS.publishableClientKey,
      '--internal-secret-server-key',
      STACK_DEVELOPMENT_KEYS.secretServerKey,
      '--internal-super-secret-admin-key',
      STACK_DEVELOPMENT_KEYS.superSecretAdminKey,
      '--oauth-provider-url',
      `http://localhost:${port(context.prefix, '14')}`,
      '--hardcoded-passkey-challenge',
    ],
    { cwd: ROOT.pathname, logFile: join(context.artifacts, 'emulator-process.log') },
  );
  try {
    await waitForUrl(`${apiUrl}/health`, 60_000, emulator);
  } catch (error) {
    await Promise.all([emulator.stop(), oauth.stop()]);
    throw error;
  }
  return { apiUrl, stop: async () => void (await Promise.all([emulator.stop(), oauth.stop()])) };
}

/**
 * The real backend of `npm run test:real` (scripts/real/start-backend.sh: started when it is not
 * running, and then left running), with what its `pnpm dev` would run beside it: a mail server (here
 * Inbucket's API over an SMTP sink), the e-mail queue's cron step and the e-mail render sandbox.
 */
async function startRealTarget(context: Context): Promise<RunningTarget> {
  const apiUrl = `http://localhost:${port(context.prefix, '02')}`;
  log(`starting the real backend (or finding it running): scripts/real/start-backend.sh`);
  const code = await runToEnd('bash', [join(ROOT.pathname, 'scripts/real/start-backend.sh')], { cwd: ROOT.pathname });
  if (code !== 0) throw new Error(`scripts/real/start-backend.sh failed (exit ${code})`);
  const sink = await startInbucketSink({ smtpPort: 8129, httpPort: port(context.prefix, '05') }).catch(
    (error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      throw new Error(
        `port 8129 (where the backend sends mail) or ${port(context.prefix, '05')} is taken, e.g. by the mail sink of npm run test:real: stop it first`,
      );
    },
  );
  const stops: (() => Promise<void>)[] = [sink.stop];
  try {
    if (!(await answers('http://127.0.0.1:8222/'))) {
      const sandbox = await startRenderSandbox({ dir: join(realBackendWorkFolder(), 'render-sandbox'), log });
      await sandbox.prepare(EMAIL_RENDERING_MODULES);
      stops.push(sandbox.stop);
    }
    const oauth = await startMockOAuthServer(context);
    stops.push(oauth.stop);
    stops.push(pumpEmailQueue(`http://127.0.0.1:${port(context.prefix, '02')}`).stop);
  } catch (error) {
    for (const stop of stops.reverse()) await stop();
    throw error;
  }
  return {
    apiUrl,
    stop: async () => {
      for (const stop of stops.reverse()) await stop();
    },
  };
}

export function startTarget(target: TargetName, context: Context): Promise<RunningTarget> {
  return target === 'emulator' ? startEmulatorTarget(context) : startRealTarget(context);
}
