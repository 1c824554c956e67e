import type { Store } from '../../store.js';
import { keywordDeltaSql } from './search-rows.js';

/**
 * Adds the keyword counts of up to `limit` stored messages that wait for them (migration 0021) and
 * returns how many it took. A message's counts are left out of the statement that stores it, which
 * is on the held write's path; searches count the waiting ones themselves, so folding them in is
 * only bookkeeping and changes no score. Many messages at once cost fewer row changes than each
 * batch on its own (a conversation's words recur). Replicas may fold together: each takes rows the
 * others do not hold.
 *
 * A group at a time, in its own transaction: the rows are taken and locked by the shard key, so the
 * fold of a group stays on the node that holds it (docs/store.md). The groups are those of the
 * first `limit` waiting rows.
 */
export async function foldKeywordCounts(store: Pick<Store, 'query' | 'transaction'>, limit: number): Promise<number> {
  const { rows: groups } = await store.query<{ group_key: string }>(
    'SELECT group_key FROM (SELECT group_key FROM search_keyword_pending LIMIT $1) p GROUP BY group_key',
    [limit],
  );
  let folded = 0;
  for (const { group_key } of groups) {
    if (folded >= limit) break;
    folded += await foldGroupKeywordCounts(store, group_key, limit - folded);
  }
  return folded;
}

/** The fold of one group's waiting counts, up to `limit` rows: one transaction, one shard. */
export async function foldGroupKeywordCounts(
  store: Pick<Store, 'transaction'>,
  group: string,
  limit: number,
): Promise<number> {
  return store.transaction(async (tx) => {
    // a row a writer holds is left for the next fold rather than waited for; counts only grow, so none falls to zero
    await tx.query(`SET LOCAL lock_timeout = '200ms'`);
    const { rows } = await tx.query<{ n: number }>(
      `WITH taken AS (
         DELETE FROM search_keyword_pending p
          WHERE p.group_key = $1 AND (p.kind, p.item_id) IN (
            SELECT kind, item_id FROM search_keyword_pending WHERE group_key = $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING p.group_key, p.conversation_id, p.kind, p.audience, p.tsv, 1 AS sign
       ),
       ${keywordDeltaSql('taken')}
       SELECT count(*)::int AS n FROM taken`,
      [group, limit],
    );
    return rows[0]?.n ?? 0;
  });
}
