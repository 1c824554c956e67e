import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createLogger } from '@memstream/logging';
import { openStore, PARTITIONS, type Store, type StoreSettings } from '@memstream/store';
import { freshDatabase } from '../../../test/helpers/infra.js';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';
import { blockedTables } from './partitioned.js';

const log = createLogger({ service: 'test', level: 'silent' });

async function blocked(): Promise<string[]> {
  const store = await migratedPglite();
  try {
    return Object.keys(await blockedTables(store));
  } finally {
    await store.close();
  }
}

async function partitionsOf(store: Store, table: string): Promise<number> {
  const { rows } = await store.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = to_regclass($1)',
    [table],
  );
  return rows[0]!.n;
}

/** Opens, writes a membership, closes, opens again (a restart): the layout holds and the row is kept. */
async function openTwice(settings: StoreSettings): Promise<void> {
  const first = await openStore(settings, log);
  try {
    assert.equal(await partitionsOf(first, 'conversation_memberships'), PARTITIONS);
    await first.query(
      `INSERT INTO conversation_memberships (group_id, user_id, access_level) VALUES ('g', 'u', 'owner')`,
    );
  } finally {
    await first.close();
  }
  const again = await openStore(settings, log);
  try {
    assert.equal(await partitionsOf(again, 'conversation_memberships'), PARTITIONS);
    const { rows } = await again.query<{ n: number }>('SELECT count(*)::int AS n FROM conversation_memberships');
    assert.equal(rows[0]!.n, 1);
  } finally {
    await again.close();
  }
}

const common = { DATABASE_POOL_MAX: 2, DATABASE_STATEMENT_TIMEOUT_MS: 60_000, STORE_LAYOUT: 'partitioned' } as const;

test('STORE_LAYOUT=partitioned lays out a PostgreSQL store when it opens, and again after a restart', async (t) => {
  const url = await freshDatabase(t);
  await openTwice({ ...common, DATABASE_URL: url, DATA_DIR: '.', STORE_LAYOUT_KEEP_PLAIN: await blocked() });
});

test('STORE_LAYOUT=partitioned lays out the embedded PGlite store too', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'memstream-layout-'));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  await openTwice({
    ...common,
    DATABASE_URL: undefined,
    DATA_DIR: dataDir,
    EMBEDDED_STORE: 'pglite',
    STORE_LAYOUT_KEEP_PLAIN: await blocked(),
  });
});

test('a store whose blocked tables are not allowed to stay plain does not open', async (t) => {
  const url = await freshDatabase(t);
  // no table of today's schema is blocked: one is made so, as a later table with a key that
  // leaves out its shard column would be, and registered as distributed
  const plain = await openStore({ ...common, STORE_LAYOUT: 'plain', DATABASE_URL: url, DATA_DIR: '.' }, log);
  try {
    assert.deepEqual(await blocked(), [], "today's schema has no blocked table");
    await plain.query('CREATE TABLE layout_probe (id text PRIMARY KEY, group_key text NOT NULL)');
    await plain.query(
      `INSERT INTO store_distribution (table_name, kind, shard_column) VALUES ('layout_probe', 'distributed', 'group_key')`,
    );
  } finally {
    await plain.close();
  }
  await assert.rejects(
    openStore({ ...common, DATABASE_URL: url, DATA_DIR: '.' }, log),
    /STORE_LAYOUT=partitioned: 1 distributed tables .*: layout_probe \(/,
  );
  const kept = await openStore(
    { ...common, DATABASE_URL: url, DATA_DIR: '.', STORE_LAYOUT_KEEP_PLAIN: ['layout_probe'] },
    log,
  );
  try {
    assert.equal(await partitionsOf(kept, 'layout_probe'), 0, 'kept plain by name');
    assert.equal(await partitionsOf(kept, 'messages'), PARTITIONS);
  } finally {
    await kept.close();
  }
});
