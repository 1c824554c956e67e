import type { Queryable } from '../store.js';

/**
 * Adds the keyword counts of up to `limit` stored messages that wait for them (migration 0021) and
 * returns how many it took. A message's counts are left out of the statement that stores it, which
 * is on the held write's path; searches count the waiting ones themselves, so folding them in is
 * only bookkeeping and changes no score. Many messages at once cost fewer row changes than each
 * batch on its own (a conversation's words recur). Replicas may fold together: each takes rows the
 * others do not hold.
 */
export async function foldKeywordCounts(q: Queryable, limit: number): Promise<number> {
  const { rows } = await q.query<{ n: number }>('SELECT search_keyword_fold($1) AS n', [limit]);
  return rows[0]?.n ?? 0;
}
