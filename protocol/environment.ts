import { ClientError } from './errors/errors.js';

/** Browsers must never hold secret keys: refuse them there with an explanation. */
export function assertNotInBrowser(what: string): void {
  const scope = globalThis as {
    window?: unknown;
    document?: unknown;
    WorkerGlobalScope?: unknown;
    importScripts?: unknown;
  };
  const inBrowser =
    (scope.window !== undefined && scope.document !== undefined) || typeof scope.importScripts === 'function';
  if (inBrowser) {
    throw new ClientError(
      'UNSAFE_CREDENTIALS',
      `${what} must never be shipped to a browser: anyone could read it. Use it on your server; in the browser, administer projects with an admin access token.`,
    );
  }
}
