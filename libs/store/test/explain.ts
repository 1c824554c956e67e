import type { Store } from '@memstream/store';

/** The parts of a JSON plan node the plan tests read. */
export interface PlanNode {
  'Node Type'?: string;
  'Relation Name'?: string;
  'Index Name'?: string;
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

/** `sql` run once with EXPLAIN ANALYZE inside a transaction that is rolled back: its plan, nothing written. */
export async function explainRolledBack(store: Store, sql: string, params: readonly unknown[]): Promise<Explained> {
  return store
    .transaction(async (tx) => {
      const { rows } = await tx.query<{ 'QUERY PLAN': Explained[] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
      throw Object.assign(new Error('rolled back on purpose'), { explained: rows[0]!['QUERY PLAN'][0]! });
    })
    .catch((err: { explained?: Explained }) => {
      if (!err.explained) throw err;
      return err.explained;
    });
}
