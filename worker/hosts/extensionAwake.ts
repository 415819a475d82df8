/**
 * Keeps an extension's background up while the broker works for someone. Browsers stop an idle
 * background (Chromium after 30 s, Firefox after `extensions.background.idle.timeout`, 30 s by
 * default), and what counts as activity differs: Chromium counts a message on a port, Firefox only
 * extension API calls and events, so a page's call (a sign-in waiting for a slow network) could
 * have the background suspended under it: the call then fails, and a session the service created
 * meanwhile is lost. Each call of a connected context, and the background's own web-auth flow, is
 * therefore held: while one is under way, the host calls a cheap extension API (`getPlatformInfo`)
 * at its start and every second, which both browsers count as activity. The browser still stops
 * the background once nothing is under way.
 */
import type { ExtensionRuntime } from '../../contract/webExtension.js';

/** How often a busy background says it is busy: well within any idle timeout a browser uses. */
export const AWAKE_EVERY_MILLIS = 1000;

/** Runs `work` with the background kept up until it settles. */
export type KeepAwake = <T>(work: () => T | Promise<T>) => Promise<T>;

export function keepAwake(
  runtime: Pick<ExtensionRuntime, 'getPlatformInfo'>,
  everyMillis = AWAKE_EVERY_MILLIS,
): KeepAwake {
  let underWay = 0;
  let timer: ReturnType<typeof setInterval> | null = null;
  const touch = () => {
    try {
      void Promise.resolve(runtime.getPlatformInfo?.()).catch(() => undefined);
    } catch {
      // An extension being reloaded or removed: nothing to keep up.
    }
  };
  return async (work) => {
    underWay += 1;
    if (underWay === 1) {
      touch();
      timer = setInterval(touch, everyMillis);
    }
    try {
      return await work();
    } finally {
      underWay -= 1;
      if (underWay === 0 && timer !== null) {
        clearInterval(timer);
        timer = null;
      }
    }
  };
}

/** The same methods, each call held awake until it settles. */
export function heldAwake<M extends object>(methods: M, awake: KeepAwake): M {
  const held = Object.create(null) as Record<string, unknown>;
  for (const [name, method] of Object.entries(methods)) {
    held[name] =
      typeof method === 'function'
        ? (...args: unknown[]) => awake(() => (method as (...a: unknown[]) => unknown)(...args))
        : method;
  }
  return held as M;
}
