/** A lazy chunk that a render needs ({@link lazyChunk}). */
export interface LazyChunk<M> {
  /** Starts loading it, if not yet: for a page that may need it soon. */
  preload(): void;
  /**
   * Its module once loaded; until then this throws its loading (the component suspends), and after a
   * failed load, the failure (a page keeps a module's failure, so trying again would fail the same way).
   */
  read(): M;
}

/**
 * A lazy chunk that a render needs, loaded once. A lazy chunk imports nothing the tab's main chunk
 * does (docs/decisions/0031-lazy-chunks-share-nothing.md): what it needs from there, its caller hands it.
 */
export function lazyChunk<M>(load: () => Promise<M>): LazyChunk<M> {
  let loaded: (() => M) | undefined;
  let loading: Promise<void> | undefined;
  const start = () =>
    (loading ??= load().then(
      (module) => void (loaded = () => module),
      (error: unknown) =>
        void (loaded = () => {
          throw error;
        }),
    ));
  return {
    preload: () => void start(),
    read() {
      if (loaded !== undefined) return loaded();
      throw start();
    },
  };
}
