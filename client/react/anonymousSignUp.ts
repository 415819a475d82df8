/**
 * What `useUser({ or: 'anonymous' })` does while nobody is signed in. Part of the user hooks' lazy
 * chunk (`userChunk.ts`), so it imports nothing the tab's main chunk imports: the client and the
 * hold come from the caller.
 */
import type { BrokerClient } from '../brokerClient.js';

/**
 * Signs up an anonymous user (or keeps whoever is signed in), then waits until this tab's copy of the current user is a
 * user.
 */
async function signUpAnonymouslyAndWait(client: BrokerClient, holdMillis: number): Promise<void> {
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

interface AnonymousSignUp {
  promise: Promise<void>;
  failure?: { error: unknown };
  forgetting?: boolean;
}
const signUps = new WeakMap<BrokerClient, AnonymousSignUp>();

/**
 * Signs up an anonymous user once per client, however many components ask, and throws what a render
 * suspends on until the tab sees a user. A failure is thrown by the renders that ask in the task
 * that first meets it (React renders again at once after an error, and must meet it again to reach
 * the error boundary); later renders try again.
 */
export function suspendForAnonymousSignUp(client: BrokerClient, holdMillis: number): never {
  const running = signUps.get(client);
  if (running?.failure !== undefined) {
    if (running.forgetting !== true) {
      running.forgetting = true;
      setTimeout(() => signUps.get(client) === running && signUps.delete(client), 0);
    }
    throw running.failure.error;
  }
  if (running !== undefined) throw running.promise;
  const entry: AnonymousSignUp = { promise: Promise.resolve() };
  entry.promise = signUpAnonymouslyAndWait(client, holdMillis).then(
    () => void signUps.delete(client),
    (error: unknown) => void (entry.failure = { error }),
  );
  signUps.set(client, entry);
  throw entry.promise;
}
