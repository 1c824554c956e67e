import type { Store } from '../../store.js';
import { runsByShardGroup, type ShardGroupsOf } from '../../shard-groups.js';
import { keywordDeltaSql } from './search-rows.js';

/**
 * Adds the keyword counts of up to `limit` stored messages that wait for them (migration 0021) and
 * returns how many it took. A message's counts are left out of the statement that stores it, which
 * is on the held write's path; searches count the waiting ones themselves, so folding them in is
 * only bookkeeping and changes no score. Many messages at once cost fewer row changes than each
 * batch on its own (a conversation's words recur). Replicas may fold together: each takes rows the
 * others do not hold.
 *
 * A shard group at a time, each in its own transaction (runsByShardGroup): the rows are taken and
 * locked by the shard key, so a fold stays on the node that holds its groups (docs/store.md); in
 * the plain layout, one transaction for them all, as the fold cost before it went by group (a
 * transaction per group made the held-write bench's PostgreSQL work per message twice as large).
 * The groups are those of the first `limit` waiting rows.
 */
export async function foldKeywordCounts(
  store: Pick<Store, 'query' | 'transaction'>,
  limit: number,
  shardGroups?: ShardGroupsOf,
): Promise<number> {
  const { rows } = await store.query<{ group_key: string }>(
    'SELECT group_key FROM (SELECT group_key FROM search_keyword_pending LIMIT $1) p GROUP BY group_key',
    [limit],
  );
  const runs = await runsByShardGroup(
    store,
    rows.map((r) => r.group_key),
    (group) => group,
    shardGroups,
  );
  let folded = 0;
  for (const groups of runs) {
    if (folded >= limit) break;
    folded += await foldGroupKeywordCounts(store, groups, limit - folded);
  }
  return folded;
}

/** The fold of some groups' waiting counts, up to `limit` rows: one transaction; one shard for one group. */
export async function foldGroupKeywordCounts(
  store: Pick<Store, 'transaction'>,
  groups: string | readonly string[],
  limit: number,
): Promise<number> {
  const one = typeof groups === 'string' || groups.length === 1;
  // one group as an equality, which every layout prunes to its partition or shard as it plans
  const groupsParam = one ? '$1' : 'ANY($1::text[])';
  const param = typeof groups === 'string' ? groups : one ? groups[0] : [...groups];
  return store.transaction(async (tx) => {
    // a row a writer holds is left for the next fold rather than waited for; counts only grow, so none falls to zero
    await tx.query(`SET LOCAL lock_timeout = '200ms'`);
    const { rows } = await tx.query<{ n: number }>(
      `WITH taken AS (
         DELETE FROM search_keyword_pending p
          WHERE p.group_key = ${groupsParam} AND (p.group_key, p.kind, p.item_id) IN (
            SELECT group_key, kind, item_id FROM search_keyword_pending WHERE group_key = ${groupsParam} LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING p.group_key, p.conversation_id, p.kind, p.audience, p.tsv, 1 AS sign
       ),
       ${keywordDeltaSql('taken')}
       SELECT count(*)::int AS n FROM taken`,
      [param, limit],
    );
    return rows[0]?.n ?? 0;
  });
}
