import type { Logger } from '@memstream/logging';
import { readDistribution } from '../distribution.js';
import type { Queryable } from '../store.js';
import { blockersOf } from './blockers.js';
import { PARTITIONS, partitioningOf, partitionTable } from './partition-table.js';
import { tableFacts } from './table-facts.js';

/**
 * `plain`: the tables as the migrations make them. `partitioned`: every distributed table of the
 * registry hash-partitioned by its shard column, so PostgreSQL refuses what Citus refuses (a key
 * without the shard column) and a plan shows how many groups' shards a statement reaches.
 */
export type StoreLayout = 'plain' | 'partitioned';

export interface LayoutSettings {
  readonly STORE_LAYOUT: StoreLayout;
  /**
   * Distributed tables that may stay plain while something blocks their partitioning, each named
   * in a warning with its blockers; any other blocked table fails the layout. A table listed here
   * that is no longer blocked is partitioned all the same.
   */
  readonly STORE_LAYOUT_KEEP_PLAIN?: readonly string[];
}

/** What a layout pass did: the tables it partitioned now, and the blocked ones it was allowed to keep plain. */
export interface LayoutOutcome {
  readonly partitioned: string[];
  readonly keptPlain: Record<string, string[]>;
}

/**
 * Brings the database to `settings`' layout, inside the migrations' transaction (see migrate):
 * after every start and every migration, so a distributed table a later migration creates, or
 * rebuilds plain, is partitioned too, and one already partitioned is left alone. Rows are kept.
 * Nothing is converted unless every table can be: a blocked table not allowed to stay plain
 * throws, naming each table and what blocks it.
 */
export async function layOut(tx: Queryable, settings: LayoutSettings, log: Logger): Promise<LayoutOutcome> {
  if (settings.STORE_LAYOUT !== 'partitioned') {
    const { rows } = await tx.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid
        JOIN store_distribution d ON d.table_name = c.relname ORDER BY 1`,
    );
    // a partitioned table cannot be made plain again in place; the layout is the database's
    if (rows.length > 0) log.warn({ tables: rows.map((r) => r.name) }, 'STORE_LAYOUT=plain on partitioned tables');
    return { partitioned: [], keptPlain: {} };
  }
  const keepPlain = new Set(settings.STORE_LAYOUT_KEEP_PLAIN ?? []);
  const [registry, facts] = await Promise.all([readDistribution(tx), tableFacts(tx)]);
  const toPartition: { table: string; column: string }[] = [];
  const refused: string[] = [];
  const keptPlain: Record<string, string[]> = {};
  for (const entry of registry.values()) {
    const table = facts.get(entry.tableName);
    if (entry.kind !== 'distributed' || !entry.shardColumn || !table) continue;
    const now = await partitioningOf(tx, entry.tableName);
    const blockers = blockersOf(table, entry.shardColumn, registry);
    if (now && (now.strategy !== 'h' || now.columns.join() !== entry.shardColumn)) {
      blockers.push(`partitioned otherwise (${now.strategy} by ${now.columns.join(', ')})`);
    }
    if (blockers.length === 0) {
      if (!now) toPartition.push({ table: entry.tableName, column: entry.shardColumn });
      if (keepPlain.has(entry.tableName))
        log.warn({ table: entry.tableName }, 'STORE_LAYOUT_KEEP_PLAIN names a table that is not blocked');
    } else if (keepPlain.has(entry.tableName) && !now) keptPlain[entry.tableName] = blockers;
    else refused.push(`${entry.tableName} (${blockers.join('; ')})`);
  }
  if (refused.length > 0) {
    throw new Error(
      `STORE_LAYOUT=partitioned: ${refused.length} distributed tables cannot be hash-partitioned by their shard column: ${refused.join(', ')}`,
    );
  }
  if (Object.keys(keptPlain).length > 0)
    log.warn({ keptPlain }, 'distributed tables kept plain (STORE_LAYOUT_KEEP_PLAIN)');
  for (const { table, column } of toPartition) {
    await partitionTable(tx, table, column);
    log.info({ table, column, partitions: PARTITIONS }, 'table hash-partitioned');
  }
  return { partitioned: toPartition.map((t) => t.table), keptPlain };
}
