import pg from 'pg';
// @ts-expect-error: pg's own value encoding, which has no type declarations
import { prepareValue } from 'pg/lib/utils.js';
import { GENERIC_PLAN, GENERIC_PLAN_SETTINGS, type Queryable, type Store } from '@memstream/store';

/** The parts of a JSON plan node the plan tests read. */
export interface PlanNode {
  'Node Type'?: string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'CTE Name'?: string;
  'Index Cond'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Conflicting Tuples'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

export interface Explained {
  Plan: PlanNode;
  Triggers?: Array<{ 'Trigger Name': string; Calls: number }>;
}

/** A plan node and every node under it. */
export function* nodesOf(node: PlanNode): Generator<PlanNode> {
  yield node;
  for (const child of node.Plans ?? []) yield* nodesOf(child);
}

/**
 * `sql` run once with EXPLAIN ANALYZE inside a transaction that is rolled back: its plan, nothing
 * written. A GENERIC_PLAN statement is planned as PgStore's pool for them plans it: with its
 * settings, and prepared, as EXPLAIN plans a statement given its parameters for their values.
 */
export async function explainRolledBack(store: Store, sql: string, params: readonly unknown[]): Promise<Explained> {
  return store
    .transaction(async (tx) => {
      let explained: string;
      if (sql.startsWith(GENERIC_PLAN)) {
        for (const [name, value] of Object.entries(GENERIC_PLAN_SETTINGS))
          await tx.query('SELECT set_config($1, $2, true)', [name, value]);
        await tx.query(`PREPARE explained_generically AS ${sql}`);
        // EXECUTE takes no bound parameters: its arguments are written as literals, as pg sends them
        const literal = (v: unknown) =>
          v === null || v === undefined ? 'NULL' : pg.escapeLiteral(String(prepareValue(v)));
        explained = `EXECUTE explained_generically(${params.map(literal).join(', ')})`;
      } else explained = sql;
      try {
        const { rows } = await tx.query<{ 'QUERY PLAN': Explained[] }>(
          `EXPLAIN (ANALYZE, FORMAT JSON) ${explained}`,
          explained === sql ? params : [],
        );
        throw Object.assign(new Error('rolled back on purpose'), { explained: rows[0]!['QUERY PLAN'][0]! });
      } finally {
        // a prepared statement outlives the transaction: gone before the connection is pooled again
        if (explained !== sql) await tx.exec('DEALLOCATE explained_generically').catch(() => undefined);
      }
    })
    .catch((err: { explained?: Explained }) => {
      if (!err.explained) throw err;
      return err.explained;
    });
}

/** The rows the scans `nodes` read, those their filters removed included, over all their loops. */
export function rowsRead(nodes: readonly PlanNode[]): number {
  return nodes.reduce(
    (sum, n) => sum + ((n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0)) * (n['Actual Loops'] ?? 1),
    0,
  );
}

/**
 * The CTEs of a plan read more than once ("name read n times"), but those `except` names: the
 * planner, expecting one row of a CTE, joins two by a nested loop that reads the inner one again
 * for each row of the outer.
 */
export function ctesReadAgain(plan: PlanNode, except: readonly string[] = []): string[] {
  return [...nodesOf(plan)]
    .filter(
      (n) => n['Node Type'] === 'CTE Scan' && (n['Actual Loops'] ?? 0) > 1 && !except.includes(n['CTE Name'] ?? ''),
    )
    .map((n) => `${n['CTE Name']} read ${n['Actual Loops']} times`);
}

/** `store` as a Queryable that keeps each statement it passes on, to be explained after. */
export function recording(store: Store): {
  queryable: Queryable;
  sent: Array<{ sql: string; params: readonly unknown[] }>;
} {
  const sent: Array<{ sql: string; params: readonly unknown[] }> = [];
  const queryable: Queryable = {
    query: (sql, params = []) => {
      sent.push({ sql, params });
      return store.query(sql, params);
    },
    exec: (sql) => store.exec(sql),
  };
  return { queryable, sent };
}
