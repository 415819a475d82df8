/**
 * A loader of one of the broker's lazy parts (`BrokerHostOptions.recorder`, `.services`) that counts
 * its calls and is held until the test lets go of it, failing the first time if asked.
 */
export function heldLoader<M>(load: () => Promise<M>, options: { failFirst?: string } = {}) {
  let release!: () => void;
  let calls = 0;
  const held = new Promise<void>((resolve) => (release = resolve));
  return {
    load: async (): Promise<M> => {
      calls += 1;
      await held;
      if (options.failFirst !== undefined && calls === 1) throw new Error(options.failFirst);
      return load();
    },
    release,
    calls: () => calls,
  };
}
