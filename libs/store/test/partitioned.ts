import { createLogger } from '@memstream/logging';
import { blockersOf, layOut, type Queryable, readDistribution, type Store, tableFacts } from '@memstream/store';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';

const log = createLogger({ service: 'test', level: 'silent' });

/** The distributed tables something blocks from being partitioned by their shard column, with the reasons. */
export async function blockedTables(q: Queryable): Promise<Record<string, string[]>> {
  const [registry, facts] = await Promise.all([readDistribution(q), tableFacts(q)]);
  const out: Record<string, string[]> = {};
  for (const entry of registry.values()) {
    const table = facts.get(entry.tableName);
    if (entry.kind !== 'distributed' || !entry.shardColumn || !table) continue;
    const blockers = blockersOf(table, entry.shardColumn, registry);
    if (blockers.length > 0) out[entry.tableName] = blockers;
  }
  return out;
}

/**
 * A migrated PGlite store with every distributed table that nothing blocks hash-partitioned, and
 * the blocked ones kept plain by name (STORE_LAYOUT_KEEP_PLAIN): the partitioned layout as far as
 * today's schema allows it.
 */
export async function partitionedPglite(): Promise<Store> {
  const store = await migratedPglite();
  try {
    const keep = Object.keys(await blockedTables(store));
    await store.transaction((tx) => layOut(tx, { STORE_LAYOUT: 'partitioned', STORE_LAYOUT_KEEP_PLAIN: keep }, log));
    return store;
  } catch (err) {
    await store.close();
    throw err;
  }
}
