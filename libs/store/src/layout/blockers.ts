import type { TableDistribution } from '../distribution.js';
import type { TableFacts } from './table-facts.js';

/**
 * Why a distributed table could not be sharded by its shard column today, each reason in the
 * words Citus would refuse it for: the column is missing or nullable, a primary key or unique
 * key lacks it, a foreign key does not join on it (or points at a table that is neither
 * distributed alongside nor a reference table), or a trigger is on the table.
 */
export function blockersOf(
  table: TableFacts,
  shardColumn: string,
  registry: ReadonlyMap<string, TableDistribution>,
): string[] {
  const out: string[] = [];
  const notNull = table.columns.get(shardColumn);
  if (notNull === undefined) out.push(`no column ${shardColumn}`);
  else if (!notNull) out.push(`${shardColumn} may be null`);
  for (const key of table.uniqueKeys) {
    if (!key.columns.includes(shardColumn)) out.push(`key ${key.name} lacks ${shardColumn}`);
  }
  for (const fk of table.foreignKeys) {
    const target = registry.get(fk.target);
    if (target?.kind === 'reference') continue;
    const i = fk.columns.indexOf(shardColumn);
    const colocated = target?.kind === 'distributed' && i >= 0 && fk.targetColumns[i] === target.shardColumn;
    if (!colocated) out.push(`foreign key ${fk.name} leaves the shard`);
    // Citus matches the shard columns of the two sides by position, and refuses a key whose
    // columns repeat one (PostgreSQL takes it)
    else if (new Set(fk.columns).size < fk.columns.length) out.push(`foreign key ${fk.name} names a column twice`);
  }
  for (const trigger of table.triggers) out.push(`trigger ${trigger}`);
  return out;
}
