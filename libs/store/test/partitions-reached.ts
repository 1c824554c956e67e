import assert from 'node:assert/strict';
import type { Queryable, Store } from '@memstream/store';
import { nodesOf, type PlanNode } from './explain.js';

/** One statement `work` ran, and the partitions of each partitioned table it read or wrote. */
export interface StatementReach {
  readonly sql: string;
  /** partitioned table -> its partitions the statement reached, sorted */
  readonly partitions: Record<string, string[]>;
}

/**
 * Runs `work` (real repository calls) in a transaction that is rolled back, recording each
 * statement it sends, then runs those statements again in order, each under EXPLAIN ANALYZE, in a
 * second transaction that is rolled back too. A partition counts as reached when a node of the
 * executed plan scans it, or when the transaction's statistics (pg_stat_xact_user_tables) moved
 * for it during the statement: a plan does not show where an INSERT's rows are routed, nor the
 * lookups of foreign-key checks.
 */
export async function partitionsReached(
  store: Store,
  work: (q: Queryable) => Promise<unknown>,
): Promise<StatementReach[]> {
  const statements = await recorded(store, work);
  return rolledBack(store, async (tx) => {
    const parents = await partitionParents(tx);
    const out: StatementReach[] = [];
    for (const s of statements) {
      // a session setting (SET LOCAL) is not a plan: it is applied as the work applied it
      if (/^\s*SET\b/i.test(s.sql)) {
        await tx.query(s.sql, s.params);
        continue;
      }
      const before = await activity(tx);
      const { rows } = await tx.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${s.sql}`,
        s.params,
      );
      const after = await activity(tx);
      const reached = new Set<string>();
      for (const node of nodesOf(rows[0]!['QUERY PLAN'][0]!.Plan)) {
        const name = node['Relation Name'];
        if (name && parents.has(name) && (node['Actual Loops'] ?? 1) > 0) reached.add(name);
      }
      for (const [name, count] of after) if (parents.has(name) && count !== before.get(name)) reached.add(name);
      const partitions: Record<string, string[]> = {};
      for (const name of [...reached].sort()) (partitions[parents.get(name)!] ??= []).push(name);
      out.push({ sql: s.sql, partitions });
    }
    return out;
  });
}

/**
 * Asserts that each statement of `work` reaches one partition of every partitioned table it
 * touches, and that `tables` were touched (so a table left plain fails instead of passing
 * unseen): one line per hot statement in the single-partition tests.
 */
export async function assertOnePartition(
  store: Store,
  tables: readonly string[],
  work: (q: Queryable) => Promise<unknown>,
): Promise<void> {
  const reach = await partitionsReached(store, work);
  for (const s of reach) {
    for (const [table, partitions] of Object.entries(s.partitions)) {
      assert.equal(partitions.length, 1, `${table}: ${partitions.join(', ')} reached by ${s.sql}`);
    }
  }
  const touched = new Set(reach.flatMap((s) => Object.keys(s.partitions)));
  assert.deepEqual(
    tables.filter((t) => !touched.has(t)),
    [],
    'tables the work should have reached on one of their partitions',
  );
}

async function recorded(
  store: Store,
  work: (q: Queryable) => Promise<unknown>,
): Promise<{ sql: string; params: readonly unknown[] }[]> {
  const statements: { sql: string; params: readonly unknown[] }[] = [];
  await rolledBack(store, (tx) =>
    work({
      query: (sql, params = []) => {
        statements.push({ sql, params });
        return tx.query(sql, params);
      },
      exec: (sql) => tx.exec(sql),
    }),
  );
  return statements;
}

/** fn's value, from a transaction that is rolled back. */
async function rolledBack<T>(store: Store, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  const marker = { value: undefined as T };
  await store
    .transaction(async (tx) => {
      marker.value = await fn(tx);
      throw marker;
    })
    .catch((err: unknown) => {
      if (err !== marker) throw err;
    });
  return marker.value;
}

/** partition name -> its partitioned table */
async function partitionParents(q: Queryable): Promise<Map<string, string>> {
  const { rows } = await q.query<{ child: string; parent: string }>(
    `SELECT c.relname AS child, p.relname AS parent FROM pg_inherits i
       JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
      WHERE p.relkind = 'p' AND c.relkind = 'r'`,
  );
  return new Map(rows.map((r) => [r.child, r.parent]));
}

/** Each table's scans and written rows so far in this transaction, as one figure. */
async function activity(q: Queryable): Promise<Map<string, number>> {
  const { rows } = await q.query<{ name: string; n: number }>(
    `SELECT relname AS name, (COALESCE(seq_scan, 0) + COALESCE(idx_scan, 0) + n_tup_ins + n_tup_upd + n_tup_del)::int8 AS n
       FROM pg_stat_xact_user_tables`,
  );
  return new Map(rows.map((r) => [r.name, r.n]));
}
