import type { Queryable } from './store.js';

/** How a table is laid out across nodes; docs/store.md says why each table has its kind. */
export type DistributionKind = 'distributed' | 'reference' | 'local';

export interface TableDistribution {
  readonly tableName: string;
  readonly kind: DistributionKind;
  /** The column a distributed table is sharded by (its conversation group); null otherwise. */
  readonly shardColumn: string | null;
}

/**
 * The distribution registry (migration 0034's `store_distribution`), by table name. The migrations
 * fill it, so a layout (Citus's `create_distributed_table`, a partitioned copy) reads it from the
 * database it lays out rather than from a list in code that could drift from the schema.
 */
export async function readDistribution(q: Queryable): Promise<Map<string, TableDistribution>> {
  const { rows } = await q.query<{ table_name: string; kind: DistributionKind; shard_column: string | null }>(
    'SELECT table_name, kind, shard_column FROM store_distribution ORDER BY table_name',
  );
  return new Map(
    rows.map((r) => [r.table_name, { tableName: r.table_name, kind: r.kind, shardColumn: r.shard_column }]),
  );
}
