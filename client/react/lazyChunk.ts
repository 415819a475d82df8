/**
 * A lazy chunk that a render needs: its module once loaded; until then a render throws its loading
 * (the component suspends), and after a failed load, the failure (a page keeps a module's failure,
 * so trying again would fail the same way). A lazy chunk imports nothing the tab's main chunk does
 * (see ARCHITECTURE.md): what it needs from there, its caller hands it.
 */
export function lazyChunk<M>(load: () => Promise<M>): () => M {
  let loaded: (() => M) | undefined;
  let loading: Promise<void> | undefined;
  return () => {
    if (loaded !== undefined) return loaded();
    throw (loading ??= load().then(
      (module) => void (loaded = () => module),
      (error: unknown) =>
        void (loaded = () => {
          throw error;
        }),
    ));
  };
}
