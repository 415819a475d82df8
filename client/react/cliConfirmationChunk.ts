/**
 * The CLI confirmation page's hook (`useCliLoginConfirmation` loads it on its first render). A
 * confirmation the person asked for by a click is remembered in this tab's sessionStorage while they
 * sign in, so that it finishes on their return; a link alone (`?login_code=…&confirmed=true` or the
 * like) never confirms anything.
 */
import { useCallback, useEffect, useState } from 'react';
import type { BrokerClient } from '../brokerClient.js';
import type { HandlerPage, RedirectOptions } from '../navigation/handlerRedirect.js';

/** Where the CLI confirmation page stands (`useCliLoginConfirmation`). */
export interface CliLoginConfirmationState {
  /** The login code of the page's `login_code` (or the one given); null when the link has none. */
  loginCode: string | null;
  /**
   * `ready` (show the warning and a button), `confirming`, `confirmed` (the CLI has the session: the
   * page can be closed), `leaving` (gone to sign in or sign up; the confirmation finishes on return),
   * `failed` (`error` says why, e.g. CLI_LOGIN_INVALID).
   */
  status: 'ready' | 'confirming' | 'confirmed' | 'leaving' | 'failed';
  error: unknown;
  /**
   * Confirms, as the person asked by a click (never on the page's own: a link alone must not sign a
   * CLI in). With nobody signed in, goes to sign in (or, when the CLI brought an anonymous user, to
   * sign up) and back here, where the confirmation this click asked for then finishes by itself.
   */
  confirm(): void;
}

type Progress = Pick<CliLoginConfirmationState, 'status' | 'error'>;
type RedirectTo = (client: BrokerClient, page: HandlerPage, options?: RedirectOptions) => Promise<void>;

const asked = (code: string) => `authbroker:cli-login:${code}`;
/** The codes being confirmed now, in this page. */
const running = new Set<string>();

function storage(): Storage | null {
  try {
    return sessionStorage;
  } catch {
    return null;
  }
}

/**
 * Confirms `code` (`resume`: only when a click asked for it before the page left to sign in). Not
 * signed in: remembers the click and goes to sign in, or to sign up to keep the CLI's own guest.
 */
async function confirmHere(
  client: BrokerClient,
  code: string,
  resume: boolean,
  report: (progress: Progress) => void,
  redirectTo: RedirectTo,
): Promise<void> {
  const store = storage();
  // One confirmation of a code at a time (a double click, StrictMode's second effect): the later ones do nothing.
  if (running.has(code)) return;
  if (resume) {
    if (store?.getItem(asked(code)) == null) return;
    // Taken at once, so that a second resume (another mount, StrictMode) finds nothing to finish.
    store.removeItem(asked(code));
  }
  running.add(code);
  report({ status: 'confirming', error: null });
  try {
    const answer = await client.confirmCliLogin(code);
    if (answer.status === 'confirmed') {
      store?.removeItem(asked(code));
      return report({ status: 'confirmed', error: null });
    }
    // Back without having signed in: the click is spent; the page asks again.
    if (resume && answer.status === 'sign-in-required') {
      store?.removeItem(asked(code));
      return report({ status: 'ready', error: null });
    }
    store?.setItem(asked(code), '1');
    report({ status: 'leaving', error: null });
    await redirectTo(client, answer.status === 'sign-up-required' ? 'signUp' : 'signIn');
  } catch (error) {
    store?.removeItem(asked(code));
    report({ status: 'failed', error });
  } finally {
    running.delete(code);
  }
}

/** `useCliLoginConfirmation` once its chunk is loaded: the hooks run in the same order on every render. */
export function useConfirmation(
  client: BrokerClient,
  loginCode: string | null | undefined,
  redirectTo: RedirectTo,
): CliLoginConfirmationState {
  const [code] = useState(() =>
    loginCode !== undefined
      ? loginCode
      : typeof location === 'undefined'
        ? null
        : new URLSearchParams(location.search).get('login_code'),
  );
  const [progress, setProgress] = useState<Progress>({ status: 'ready', error: null });
  const run = useCallback(
    (resume: boolean) => {
      if (code) void confirmHere(client, code, resume, setProgress, redirectTo);
    },
    [client, code, redirectTo],
  );
  // Back from signing in: finishes a confirmation a click on this page asked for before it left.
  useEffect(() => run(true), [run]);
  const confirm = useCallback(() => run(false), [run]);
  return { loginCode: code, ...progress, confirm };
}
