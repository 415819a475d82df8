import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { Engine, EngineProfile, EngineTab } from './engine.js';
import { WebDriverSession } from './webdriver.js';

/**
 * WebKitGTK through `WebKitWebDriver` (W3C WebDriver classic) and MiniBrowser, which has no
 * headless mode: the driver runs under `xvfb-run -a`. The driver allows one session at a time, so
 * each profile is a session of its own (a new MiniBrowser process); every command of a session
 * goes through one queue, since WebDriver commands apply to the session's current window.
 */
export interface WebKitPaths {
  driver: string;
  miniBrowser: string;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Driver {
  url: string;
  stop(): Promise<void>;
}

async function startDriver(driverPath: string): Promise<Driver> {
  const port = await freePort();
  // Its own process group, so that stopping it ends xvfb-run, Xvfb, the driver and MiniBrowser.
  const child: ChildProcess = spawn('xvfb-run', ['-a', driverPath, `--port=${port}`, '--replace-on-new-session'], {
    detached: true,
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      return;
    }
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))]);
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      const response = await fetch(`${url}/status`, { signal: AbortSignal.timeout(1000) });
      if (response.ok) return { url, stop };
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop();
      throw new Error(`WebKitWebDriver did not start on port ${port} within 15 s (is xvfb-run installed?).`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs commands one after another (WebDriver has one current window per session). */
function serialized(): <T>(command: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (command) => {
    const run = tail.then(command, command);
    tail = run.catch(() => undefined);
    return run;
  };
}

/** A function's source run as an async WebDriver script, its outcome reported as plain data. */
function scriptFor(source: string): string {
  return `const done = arguments[arguments.length - 1];
const arg = arguments[0];
Promise.resolve()
  .then(() => (${source})(arg))
  .then((value) => done({ ok: true, value: value === undefined ? null : value }), (error) => done({ ok: false, error: error && error.stack ? String(error.stack) : String(error) }));`;
}

const SCRIPT_DEADLINE_MILLIS = 60_000;

export async function launchWebKit(paths: WebKitPaths): Promise<Engine> {
  let driver = await startDriver(paths.driver);
  const capabilities = {
    browserName: 'MiniBrowser',
    timeouts: { script: SCRIPT_DEADLINE_MILLIS, pageLoad: 30_000 },
    'webkitgtk:browserOptions': { binary: paths.miniBrowser, args: ['--automation'] },
  };
  // Under load the driver now and then never answers a first new-session request: one retry,
  // with a fresh driver.
  async function newSession(): Promise<WebDriverSession> {
    try {
      return await WebDriverSession.create(driver.url, capabilities, 20_000);
    } catch (first) {
      await driver.stop();
      driver = await startDriver(paths.driver);
      try {
        return await WebDriverSession.create(driver.url, capabilities, 30_000);
      } catch (second) {
        throw new Error(
          `WebKitWebDriver created no session twice: ${(first as Error).message}; then ${(second as Error).message}`,
        );
      }
    }
  }

  let version = 'WebKitGTK (MiniBrowser)';
  return {
    name: 'webkit',
    get version() {
      return version;
    },
    async newProfile(): Promise<EngineProfile> {
      const session = await newSession();
      version = `WebKitGTK ${String(session.capabilities.browserVersion ?? '')} (MiniBrowser)`.replace('  ', ' ');
      const queue = serialized();
      // The window the session opened with, until a tab takes it.
      let spare: string | null = await session.currentWindow();
      const open = new Set<string>();
      const inWindow = <T>(handle: string, command: () => Promise<T>) =>
        queue(async () => {
          await session.switchTo(handle);
          return command();
        });
      return {
        openTab: (url) =>
          queue(async () => {
            const handle = spare ?? (await session.newWindow());
            spare = null;
            open.add(handle);
            await session.switchTo(handle);
            await session.navigate(url);
            const tab: EngineTab = {
              evaluate: async <A, R>(fn: (arg: A) => R | Promise<R>, arg: A) => {
                const outcome = await inWindow(handle, () =>
                  session.executeAsync<{ ok: boolean; value?: R; error?: string }>(
                    scriptFor(fn.toString()),
                    [arg === undefined ? null : arg],
                    SCRIPT_DEADLINE_MILLIS + 5000,
                  ),
                );
                if (!outcome.ok) throw new Error(`In the page: ${outcome.error}`);
                return outcome.value as R;
              },
              reload: () => inWindow(handle, () => session.refresh()),
              close: () =>
                queue(async () => {
                  // Closing a session's last window ends the session: keep a blank one open instead.
                  if (open.size === 1 && spare === null) spare = await session.newWindow();
                  await session.switchTo(handle);
                  await session.closeWindow();
                  open.delete(handle);
                }),
            };
            return tab;
          }),
        close: () => queue(() => session.delete().catch(() => undefined)),
      };
    },
    close: () => driver.stop(),
  };
}
