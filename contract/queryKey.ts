/**
 * A query is named by its kind and its parameters ([kind, params]); this is the one function that
 * turns that into a text key, on both sides of the connection. Parameter order does not matter and
 * an undefined parameter is the same as an absent one, so `{ kind, projectId: undefined }` and
 * `{ kind }` are one query.
 */
export function hashQueryKey(spec: { readonly kind: string }): string {
  const { kind, ...params } = spec as { kind: string } & Record<string, unknown>;
  return JSON.stringify([kind, sortedPlainData(params)]);
}

function sortedPlainData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedPlainData);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const inner = (value as Record<string, unknown>)[key];
    if (inner !== undefined) out[key] = sortedPlainData(inner);
  }
  return out;
}
