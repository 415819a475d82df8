import { useCallback, useEffect, useRef, useState } from 'react';

export interface Action<A extends unknown[], R> {
  /** Runs the action; resolves with its result, or undefined when it failed (the error is kept). */
  run: (...args: A) => Promise<R | undefined>;
  busy: boolean;
  error: unknown;
  setError: (error: unknown) => void;
  reset: () => void;
}

/**
 * Busy and error state for one button or form. Errors are kept (for a sentence on screen), never
 * thrown; a second click while busy is ignored.
 */
export function useAction<A extends unknown[], R>(fn: (...args: A) => Promise<R>): Action<A, R> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const fnRef = useRef(fn);
  fnRef.current = fn;
  const busyRef = useRef(false);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const run = useCallback(async (...args: A): Promise<R | undefined> => {
    if (busyRef.current) return undefined;
    busyRef.current = true;
    setBusy(true);
    setError(null);
    try {
      return await fnRef.current(...args);
    } catch (e) {
      if (mounted.current) setError(e ?? new Error('Something went wrong.'));
      return undefined;
    } finally {
      busyRef.current = false;
      if (mounted.current) setBusy(false);
    }
  }, []);
  const reset = useCallback(() => setError(null), []);
  return { run, busy, error, setError, reset };
}
