import { useEffect, useState } from 'react';

/**
 * Runs a one-shot step (redeeming a code from a link) once per key, even though React's
 * StrictMode mounts components twice in development: the second mount gets the same promise.
 */
const running = new Map<string, Promise<unknown>>();

export function once<T>(key: string, run: () => Promise<T>): Promise<T> {
  let promise = running.get(key) as Promise<T> | undefined;
  if (promise === undefined) {
    promise = run();
    running.set(key, promise);
  }
  return promise;
}

export type OneShot<T> =
  { status: 'idle' } | { status: 'pending' } | { status: 'done'; value: T } | { status: 'error'; error: unknown };

/** `once` as a hook: null key = nothing to do (yet). A new key runs again. */
export function useOneShot<T>(key: string | null, run: () => Promise<T>): OneShot<T> {
  const [state, setState] = useState<{ key: string | null; result: OneShot<T> }>({
    key: null,
    result: { status: 'idle' },
  });
  useEffect(() => {
    if (key === null) return;
    let live = true;
    setState({ key, result: { status: 'pending' } });
    once(key, run).then(
      (value) => live && setState({ key, result: { status: 'done', value } }),
      (error: unknown) => live && setState({ key, result: { status: 'error', error } }),
    );
    return () => {
      live = false;
    };
    // `run` is a new function each render; the key decides when to run again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  if (key === null) return { status: 'idle' };
  return state.key === key ? state.result : { status: 'pending' };
}

/** A value fixed for the life of a component (StrictMode's two effect runs see the same one). */
export function useVisitId(): string {
  const [id] = useState(() => crypto.randomUUID());
  return id;
}
