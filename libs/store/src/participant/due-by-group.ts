import type { Queryable } from '../store.js';

/** Where a batch's due rows are: the table, what keys a row, its order, and the condition. */
export interface DueRows {
  readonly table: string;
  /** The column holding the group, the table's shard column. */
  readonly shard: string;
  readonly key: string;
  readonly order: string;
  /** SQL true for a due row, over `params`. */
  readonly where: string;
  readonly params: unknown[];
  readonly limit: number;
}

/**
 * A governance batch over a distributed table, by group: the first `limit` due rows (in `order`)
 * are found without a lock, a read of every shard, and each group's are then taken by `take`, a
 * statement locking by the group (the shard key) in the batch's transaction, as Citus takes a row
 * lock only on one shard (docs/store.md). `take` re-checks what made a row due and skips a row
 * another transaction holds, as FOR UPDATE SKIP LOCKED over the whole table did. `found`: how
 * many were due, taken or not.
 */
export async function dueByGroup<T>(
  tx: Queryable,
  due: DueRows,
  take: (group: string, keys: string[]) => Promise<readonly T[]>,
): Promise<{ taken: T[]; found: number }> {
  const params = [...due.params];
  const { rows } = await tx.query<{ shard: string; keys: string[] }>(
    `SELECT shard, array_agg(k::text ORDER BY o) AS keys FROM (
       SELECT ${due.shard} AS shard, ${due.key} AS k, ${due.order} AS o FROM ${due.table} WHERE ${due.where}
       ORDER BY ${due.order} LIMIT $${params.push(due.limit)}) d
     GROUP BY shard ORDER BY min(o)`,
    params,
  );
  const taken: T[] = [];
  for (const { shard, keys } of rows) taken.push(...(await take(shard, keys)));
  return { taken, found: rows.reduce((n, r) => n + r.keys.length, 0) };
}
