import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';

/** Processes the lane starts, each in a process group of its own so that stopping it stops its children. */

export const log = (line: string) => console.log(`[service suite ${new Date().toISOString().slice(11, 19)}] ${line}`);

export const secondsSince = (from: number) => Math.round((performance.now() - from) / 100) / 10;

export interface Started {
  child: ChildProcess;
  /** Stops the process and its children (SIGTERM, then SIGKILL after 5 s). */
  stop(): Promise<void>;
}

/** Starts a long-running process whose output goes to `logFile`. */
export function startProcess(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; logFile: string },
): Started {
  const out = createWriteStream(options.logFile, { flags: 'a' });
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout!.pipe(out);
  child.stderr!.pipe(out);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const signal = (name: NodeJS.Signals) => {
        try {
          process.kill(-child.pid!, name);
        } catch {
          // already gone
        }
      };
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Runs a command to its end; resolves with its exit code (its output is shown, or written to `logFile`). */
export function runToEnd(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; logFile?: string },
): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: options.logFile === undefined ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    });
    if (options.logFile !== undefined) {
      const out = createWriteStream(options.logFile, { flags: 'a' });
      child.stdout!.pipe(out);
      child.stderr!.pipe(out);
    }
    child.once('error', () => resolve(127));
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

/** Whether anything answers HTTP at `url`. */
export async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(3000) });
    return true;
  } catch {
    return false;
  }
}

/** Waits until `url` answers, or fails after `timeoutMillis` (sooner when `started` exits). */
export async function waitForUrl(url: string, timeoutMillis: number, started?: Started): Promise<void> {
  const deadline = Date.now() + timeoutMillis;
  while (!(await answers(url))) {
    if (started !== undefined && (started.child.exitCode !== null || started.child.signalCode !== null))
      throw new Error(
        `the process meant to answer ${url} exited (${started.child.exitCode ?? started.child.signalCode})`,
      );
    if (Date.now() > deadline) throw new Error(`nothing answered ${url} within ${timeoutMillis / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}
