import { redirectTo } from '../redirects.js';
import type { CliLoginConfirmationState } from './cliConfirmationChunk.js';
import { lazyChunk } from './lazyChunk.js';
import { useBrokerClient } from './provider.js';

/** The confirmation's state and steps are a lazy chunk: most apps have no CLI, and their pages never load it. */
const chunk = lazyChunk(() => import('./cliConfirmationChunk.js'));

/**
 * The CLI confirmation page's state and its button (the page at `handlerPaths.cliAuthConfirm`, which
 * `promptCliLogin` sends the person to, with `login_code` in its query). The broker gives the waiting
 * CLI this browser's session; the page never holds it. Suspends the first time, until its code is loaded.
 */
export function useCliLoginConfirmation(loginCode?: string | null): CliLoginConfirmationState {
  const client = useBrokerClient();
  return chunk.read().useConfirmation(client, loginCode, redirectTo);
}
