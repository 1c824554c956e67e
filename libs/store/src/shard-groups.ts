import type { Queryable } from './store.js';
import { PARTITIONS } from './layout/partition-table.js';

/**
 * The shard group of each conversation group: where the layout puts its rows in every distributed
 * table (they are colocated, so one shard of each). Asked of the database, which places them.
 */
export type ShardGroupsOf = (q: Pick<Queryable, 'query'>, groups: readonly string[]) => Promise<Map<string, string>>;

/**
 * A layout's ShardGroupsOf; undefined for the plain layout, where every row is on one node and a
 * batch is best stored in one statement. Hash partitions: the partition whose remainder the
 * group's hash satisfies, PostgreSQL's own routing test. Citus: the shard of `conversations`
 * holding the group (the other tables' shards of that hash range are on the same node).
 */
export function shardGroupsOf(settings: {
  readonly STORE_LAYOUT?: 'plain' | 'partitioned' | undefined;
  readonly STORE_DISTRIBUTION?: 'none' | 'citus' | undefined;
  readonly STORE_LAYOUT_KEEP_PLAIN?: readonly string[] | undefined;
}): ShardGroupsOf | undefined {
  if (settings.STORE_DISTRIBUTION === 'citus')
    return asked(
      `SELECT g AS group_key, get_shard_id_for_distribution_column('conversations', g)::text AS shard
       FROM unnest($1::text[]) AS g`,
    );
  if (settings.STORE_LAYOUT === 'partitioned' && !settings.STORE_LAYOUT_KEEP_PLAIN?.includes('conversations'))
    return asked(
      `SELECT g AS group_key, r::text AS shard
       FROM unnest($1::text[]) AS g, generate_series(0, ${PARTITIONS - 1}) AS r
       WHERE satisfies_hash_partition('conversations'::regclass, ${PARTITIONS}, r, g)`,
    );
  return undefined;
}

function asked(sql: string): ShardGroupsOf {
  return async (q, groups) => {
    const { rows } = await q.query<{ group_key: string; shard: string }>(sql, [[...groups]]);
    return new Map(rows.map((r) => [r.group_key, r.shard]));
  };
}

/**
 * `items` in runs, one per shard group of their groups (`groupOf`), each run in the order given;
 * one run when there is no `shardGroups` (the plain layout) or one group. A statement over one
 * run stays on one node, and may lock its rows there: Citus locks rows of one shard group at a
 * time, and commits a transaction of one node without two phases.
 */
export async function runsByShardGroup<T>(
  q: Pick<Queryable, 'query'>,
  items: readonly T[],
  groupOf: (item: T) => string,
  shardGroups: ShardGroupsOf | undefined,
): Promise<T[][]> {
  const groups = [...new Set(items.map(groupOf))];
  if (shardGroups === undefined || groups.length < 2) return items.length === 0 ? [] : [[...items]];
  const shardOf = await shardGroups(q, groups);
  const runs = new Map<string, T[]>();
  for (const item of items) {
    const shard = shardOf.get(groupOf(item)) ?? '';
    const run = runs.get(shard);
    if (run) run.push(item);
    else runs.set(shard, [item]);
  }
  return [...runs.values()];
}
