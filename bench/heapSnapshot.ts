/**
 * Bytes held per heap-snapshot node type (object, closure, string…), with compiled code and V8's
 * internals left out: code keeps growing while functions warm up and is not a leak.
 */
export function objectBytesByType(snapshotText: string): Map<string, number> {
  const snapshot = JSON.parse(snapshotText) as { snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }; nodes: number[] };
  const fields = snapshot.snapshot.meta.node_fields;
  const typeIndex = fields.indexOf('type');
  const sizeIndex = fields.indexOf('self_size');
  const names = snapshot.snapshot.meta.node_types[0];
  const bytes = new Map<string, number>();
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    const type = names[snapshot.nodes[i + typeIndex]!]!;
    if (type === 'code' || type === 'hidden' || type === 'object shape') continue;
    bytes.set(type, (bytes.get(type) ?? 0) + snapshot.nodes[i + sizeIndex]!);
  }
  return bytes;
}

/** What grew from one snapshot to the next, per type (growth only). */
export function growthByType(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  return Object.fromEntries([...after].map(([type, bytes]) => [type, bytes - (before.get(type) ?? 0)] as const).filter(([, bytes]) => bytes > 0));
}

export const totalBytes = (growth: Record<string, number>): number => Object.values(growth).reduce((sum, bytes) => sum + bytes, 0);
