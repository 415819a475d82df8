/**
 * What `useUser({ or: 'anonymous' })` waits for, a lazy chunk of its own (most pages never sign
 * anyone up anonymously). It imports nothing the tab's main chunk imports (see ARCHITECTURE.md): the
 * client and the hold come from the caller.
 */
import type { BrokerClient } from '../client.js';

/** Signs up an anonymous user (or keeps whoever is signed in), then waits until this tab's copy of the current user is a user. */
export async function signUpAnonymouslyAndWait(client: BrokerClient, holdMillis: number): Promise<void> {
  await client.signUpAnonymously();
  const spec = { kind: 'currentUser' } as const;
  const shown = () => {
    const data = client.getSnapshot(spec)?.data;
    return data !== undefined && data !== null;
  };
  await new Promise<void>((resolve) => {
    let unsubscribe: () => void = () => undefined;
    let done = false;
    const check = () => {
      if (done || !shown()) return;
      done = true;
      // Held a moment, like the store's `settled`: the component that suspended finds the user at its next render.
      setTimeout(() => unsubscribe(), holdMillis);
      resolve();
    };
    unsubscribe = client.subscribe(spec, check);
    check();
  });
}
