/** VitePress's virtual module of the local search's index: a loader per locale of the JSON text. */
declare module '@localSearchIndex' {
  const loaders: Record<string, () => Promise<{ default: string }>>;
  export default loaders;
}
