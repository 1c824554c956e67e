import pg from 'pg';
// @ts-expect-error: pg's own value encoding, which has no type declarations
import { prepareValue } from 'pg/lib/utils.js';
import { GENERIC_PLAN, GENERIC_PLAN_SETTINGS, type Store } from '@memstream/store';

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
