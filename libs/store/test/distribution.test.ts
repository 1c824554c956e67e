import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readDistribution } from '@memstream/store';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';
import { tableFacts } from './catalog.js';
import { blockersOf } from './distribution-blockers.js';

/**
 * The distributed tables that cannot yet be sharded by their shard column, and why. Each session
 * of issue 48 that fixes a table removes its lines; the test fails both on a new blocker and on a
 * line left here after its fix, so the list only shrinks and always says what is left.
 */
const BLOCKERS: Readonly<Record<string, readonly string[]>> = {};

test('the distribution registry lists every table, and only tables that exist', async (t) => {
  const store = await migratedPglite();
  t.after(() => store.close());
  const [registry, tables] = await Promise.all([readDistribution(store), tableFacts(store)]);
  const unlisted = [...tables.keys()].filter((name) => !registry.has(name));
  const missing = [...registry.keys()].filter((name) => !tables.has(name));
  assert.deepEqual(
    unlisted,
    [],
    'tables with no row in store_distribution (add one in the migration that creates them)',
  );
  assert.deepEqual(missing, [], 'store_distribution rows naming no table');
});

test('a distributed table has its shard column and keys that include it, or is a named blocker', async (t) => {
  const store = await migratedPglite();
  t.after(() => store.close());
  const [registry, tables] = await Promise.all([readDistribution(store), tableFacts(store)]);
  const found: Record<string, string[]> = {};
  for (const entry of registry.values()) {
    const table = tables.get(entry.tableName);
    if (entry.kind !== 'distributed' || !entry.shardColumn || !table) continue;
    const blockers = blockersOf(table, entry.shardColumn, registry);
    if (blockers.length > 0) found[entry.tableName] = blockers;
  }
  assert.deepEqual(found, BLOCKERS);
});
