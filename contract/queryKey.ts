/**
 * A query is named by its kind and its parameters ([kind, params]); this is the one function that
 * turns that into a text key, on both sides of the connection. Parameter order does not matter and
 * an undefined parameter is the same as an absent one, so `{ kind, projectId: undefined }` and
 * `{ kind }` are one query. The key is the JSON text of `[kind, params]` with sorted keys.
 */
export function hashQueryKey(spec: { readonly kind: string }): string {
  // Built by hand rather than by copying the parameters into a sorted object first: tabs compute
  // it on every render that reads a query, and the broker on every call.
  const record = spec as { kind: string } & Record<string, unknown>;
  let params = '';
  for (const key of Object.keys(record).sort()) {
    if (key === 'kind') continue;
    const text = JSON.stringify(sortedPlainData(record[key]));
    if (text === undefined) continue;
    params += `${params === '' ? '' : ','}${JSON.stringify(key)}:${text}`;
  }
  return `[${JSON.stringify(record.kind)},{${params}}]`;
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
