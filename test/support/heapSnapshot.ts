/**
 * Bytes held per heap-snapshot node type (object, closure, string…), with compiled code and V8's
 * internals left out: code keeps growing while functions warm up and is not a leak.
 */
export function objectBytesByType(snapshotText: string): Map<string, number> {
  const { byType } = heapBreakdown(snapshotText);
  return new Map(
    Object.entries(byType).filter(([type]) => type !== 'code' && type !== 'hidden' && type !== 'object shape'),
  );
}

/** What grew from one snapshot to the next, per type (growth only). */
export function growthByType(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  return Object.fromEntries(
    [...after]
      .map(([type, bytes]) => [type, bytes - (before.get(type) ?? 0)] as const)
      .filter(([, bytes]) => bytes > 0),
  );
}

export const totalBytes = (growth: Record<string, number>): number =>
  Object.values(growth).reduce((sum, bytes) => sum + bytes, 0);

/** What a heap holds: bytes per node type, compiled code and the page's native objects included. */
export interface HeapBreakdown {
  totalBytes: number;
  byType: Record<string, number>;
}

export function heapBreakdown(snapshotText: string): HeapBreakdown {
  const snapshot = JSON.parse(snapshotText) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
  };
  const fields = snapshot.snapshot.meta.node_fields;
  const typeIndex = fields.indexOf('type');
  const sizeIndex = fields.indexOf('self_size');
  const types = snapshot.snapshot.meta.node_types[0];
  const byType: Record<string, number> = {};
  let totalBytes = 0;
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    const type = types[snapshot.nodes[i + typeIndex]!]!;
    const size = snapshot.nodes[i + sizeIndex]!;
    totalBytes += size;
    byType[type] = (byType[type] ?? 0) + size;
  }
  return { totalBytes, byType };
}
