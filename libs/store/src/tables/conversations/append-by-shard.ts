import type { Queryable } from '../../store.js';
import { runsByShardGroup, type ShardGroupsOf } from '../../shard-groups.js';
import { appendMessages, type AppendItem, type AppendResult } from './messages.js';

/**
 * appendMessages, one statement per shard group of the batch's groups (runsByShardGroup): on
 * Citus a statement (and, outside a transaction, its commit) that writes one shard group is one
 * node's work, where one over several is a two-phase commit between them. A group's messages keep
 * their order, as they are all in one statement; the results come back in the order of `items`.
 * Without shard groups (the plain layout) the statement names no groups (AppendOptions).
 */
export async function appendByShardGroup(
  q: Queryable,
  items: readonly AppendItem[],
  shardGroups: ShardGroupsOf | undefined,
): Promise<AppendResult[]> {
  const runs = await runsByShardGroup(
    q,
    items.map((item, i) => ({ item, i })),
    ({ item }) => item.message.group_key ?? item.message.conversation_id,
    shardGroups,
  );
  const o = { pruneByGroups: shardGroups !== undefined };
  if (runs.length <= 1) return appendMessages(q, items, o);
  const results: AppendResult[] = new Array(items.length);
  for (const run of runs) {
    const stored = await appendMessages(
      q,
      run.map(({ item }) => item),
      o,
    );
    run.forEach(({ i }, k) => (results[i] = stored[k]!));
  }
  return results;
}
