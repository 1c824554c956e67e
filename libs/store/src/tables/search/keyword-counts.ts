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
 * The groups are those of the first `limit` waiting rows. On Citus the rows are locked by a
 * statement of their own, which must stay on one shard: pass the layout's `shardGroups`, as the
 * converter does.
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

/** Picks and locks up to `$2` waiting rows of `groups` (`$1`: one group, or an array of them), by item id. */
export const keywordTakeSql = (groups: '$1' | 'ANY($1::text[])') =>
  `SELECT item_id FROM search_keyword_pending WHERE group_key = ${groups} LIMIT $2 FOR UPDATE SKIP LOCKED`;

/**
 * The fold of the waiting rows of `groups` (`$1`) whose item ids are `$2`, rows keywordTakeSql locked.
 *
 * Two statements, the ids passed back as a parameter: the queue's statistics cannot be trusted
 * (it is often empty when autovacuum looks, and the planner then takes a backlog for one row), so
 * the delete must be fast whatever plan it gets. Its ids are a constant array of known length:
 * probed in the queue's item index (migration 0046) or checked by hash along any scan, each row
 * costs the same. The ids come first in the condition: PostgreSQL 16.2 hashes only the first
 * `= ANY` of one, and compared each row with 5,000 ids one by one (1.7 s for 25,000 rows). As one
 * statement, its rows chosen by a subquery it was joined to, the delete was planned as a scan of
 * the queue for each row taken (up to 10.9 s a fold of 5,000 in bench:scale's bursts) or as a
 * rescan of the subquery for each queued row, which took the whole backlog at once.
 * An item id names one message; a row of another kind with the same id in these groups would be
 * deleted too, and counted, as the delete returns it.
 */
export function keywordFoldSql(groups: '$1' | 'ANY($1::text[])'): string {
  return `WITH taken AS (
       DELETE FROM search_keyword_pending p WHERE p.item_id = ANY ($2::text[]) AND p.group_key = ${groups}
       RETURNING p.group_key, p.conversation_id, p.kind, p.audience, p.tsv, 1 AS sign
     ),
     ${keywordDeltaSql('taken')}
     SELECT count(*)::int AS n FROM taken`;
}

/** The fold of some groups' waiting counts, up to `limit` rows: one transaction; one shard for one group. */
export async function foldGroupKeywordCounts(
  store: Pick<Store, 'transaction'>,
  groups: string | readonly string[],
  limit: number,
): Promise<number> {
  const one = typeof groups === 'string' || groups.length === 1;
  // one group as an equality, which every layout prunes to its partition or shard as it plans
  const groupsSql = one ? ('$1' as const) : ('ANY($1::text[])' as const);
  const param = typeof groups === 'string' ? groups : one ? groups[0] : [...groups];
  return store.transaction(async (tx) => {
    // a row a writer holds is left for the next fold rather than waited for; counts only grow, so none falls to zero
    await tx.query(`SET LOCAL lock_timeout = '200ms'`);
    const taken = await tx.query<{ item_id: string }>(keywordTakeSql(groupsSql), [param, limit]);
    if (taken.rows.length === 0) return 0;
    const { rows } = await tx.query<{ n: number }>(keywordFoldSql(groupsSql), [
      param,
      taken.rows.map((r) => r.item_id),
    ]);
    return rows[0]?.n ?? 0;
  });
}
