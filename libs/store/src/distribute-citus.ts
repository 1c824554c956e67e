import type { Logger } from '@memstream/logging';
import { readDistribution, type TableDistribution } from './distribution.js';
import type { Queryable, Store } from './store.js';

// Another constant than the migrations': replicas distributing at start-up take turns per table.
const DISTRIBUTION_LOCK_KEY = 7_310_420_502;

/** A foreign key of one table of the public schema on another (or itself). */
export interface ForeignKeyEdge {
  readonly table: string;
  readonly target: string;
}

/** One `create_reference_table` or `create_distributed_table` call, in the order they must run. */
export interface CitusStep {
  readonly table: string;
  readonly kind: 'reference' | 'distributed';
  /** The shard column of a distributed table; null for a reference table. */
  readonly shardColumn: string | null;
}

export async function readForeignKeys(q: Queryable): Promise<ForeignKeyEdge[]> {
  const { rows } = await q.query<ForeignKeyEdge>(
    `SELECT c.conrelid::regclass::text AS table, c.confrelid::regclass::text AS target
       FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
      WHERE c.contype = 'f' AND n.nspname = 'public'
      ORDER BY 1, 2`,
  );
  return rows;
}

/**
 * The calls that lay the registry out on Citus: reference tables first, then distributed tables,
 * each set ordered so a table comes after every table its foreign keys point at (Citus refuses a
 * foreign key to a table it does not manage yet). Local tables stay on the coordinator. A foreign
 * key to a table of another kind is not an ordering constraint: Citus refuses it, and that refusal
 * is the error to report. Ties go by name, so the order is the same on every run.
 */
export function citusPlan(
  registry: ReadonlyMap<string, TableDistribution>,
  edges: readonly ForeignKeyEdge[],
): CitusStep[] {
  const steps: CitusStep[] = [];
  for (const kind of ['reference', 'distributed'] as const) {
    const tables = [...registry.values()].filter((t) => t.kind === kind).map((t) => t.tableName);
    for (const table of ordered(tables, edges)) {
      steps.push({
        table,
        kind,
        shardColumn: kind === 'distributed' ? (registry.get(table)?.shardColumn ?? null) : null,
      });
    }
  }
  return steps;
}

function ordered(tables: readonly string[], edges: readonly ForeignKeyEdge[]): string[] {
  const members = new Set(tables);
  const pending = new Map(tables.map((t) => [t, new Set<string>()]));
  for (const e of edges) {
    if (e.table !== e.target && members.has(e.table) && members.has(e.target)) pending.get(e.table)?.add(e.target);
  }
  const out: string[] = [];
  while (pending.size > 0) {
    const ready = [...pending]
      .filter(([, targets]) => targets.size === 0)
      .map(([t]) => t)
      .sort();
    if (ready.length === 0) {
      throw new Error(
        `STORE_DISTRIBUTION=citus: foreign keys form a cycle among ${[...pending.keys()].sort().join(', ')}`,
      );
    }
    for (const t of ready) {
      out.push(t);
      pending.delete(t);
      for (const targets of pending.values()) targets.delete(t);
    }
  }
  return out;
}

/**
 * Lays the store out on the Citus coordinator `store` is connected to, from the registry the
 * migrations filled: every distributed table colocated with the first (they share the group as
 * shard key, and a foreign key between distributed tables needs colocation). A table Citus already
 * manages as the registry says is left alone, so every start may run it. Every table is tried; if
 * any fails, one error names each failed table with Citus's reason.
 */
export async function distributeOnCitus(store: Store, log: Logger): Promise<void> {
  const citus = await store.query("SELECT 1 FROM pg_extension WHERE extname = 'citus'");
  if (citus.rows.length === 0) {
    throw new Error(
      'STORE_DISTRIBUTION=citus: the citus extension is not installed in this database; run CREATE EXTENSION citus on the coordinator (and add the workers) before starting memstream',
    );
  }
  const steps = citusPlan(await readDistribution(store), await readForeignKeys(store));
  let colocateWith: string | null = null;
  const failures: string[] = [];
  for (const step of steps) {
    try {
      const created = await store.transaction((tx) => applyStep(tx, step, colocateWith));
      if (created) log.info({ table: step.table, kind: step.kind }, 'table laid out on citus');
      if (step.kind === 'distributed' && colocateWith === null) colocateWith = step.table;
    } catch (err) {
      failures.push(
        `${step.table} (${step.kind}${step.shardColumn ? ` by ${step.shardColumn}` : ''}): ${reasonOf(err)}`,
      );
    }
  }
  if (failures.length > 0) {
    throw new Error(
      `STORE_DISTRIBUTION=citus: ${failures.length} of ${steps.length} tables failed:\n  ${failures.join('\n  ')}`,
    );
  }
}

/** Citus's message with its detail, which says which constraint or column is in the way. */
function reasonOf(err: unknown): string {
  const { message, detail } = err as { message: string; detail?: string };
  return detail ? `${message}: ${detail}` : message;
}

/** Resolves false when Citus already manages the table as asked. */
async function applyStep(tx: Queryable, step: CitusStep, colocateWith: string | null): Promise<boolean> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [DISTRIBUTION_LOCK_KEY]);
  const { rows } = await tx.query<{ type: string }>(
    'SELECT citus_table_type AS type FROM citus_tables WHERE table_name = $1::regclass',
    [step.table],
  );
  if (rows[0]?.type === step.kind) return false;
  if (step.kind === 'reference') await tx.query('SELECT create_reference_table($1)', [step.table]);
  else {
    await tx.query('SELECT create_distributed_table($1, $2, colocate_with => $3)', [
      step.table,
      step.shardColumn,
      colocateWith ?? 'default',
    ]);
  }
  return true;
}
