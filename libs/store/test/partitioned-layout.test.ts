import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '@memstream/logging';
import { layOut, migrate, PARTITIONS, type Queryable, readDistribution } from '@memstream/store';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';
import { blockedTables } from './partitioned.js';

const log = createLogger({ service: 'test', level: 'silent' });

/** A row or more in each distributed table that can be partitioned today, and in some that cannot. */
const FIXTURE = `
  INSERT INTO conversations (id, source_api, group_key) VALUES ('c1', 'kaos', 'c1'), ('c2', 'evermemos', 'c2');
  INSERT INTO kaos_sessions (agent, session_id, conversation_id, app_name, user_id) VALUES ('a', 's1', 'c1', 'app', 'u1');
  INSERT INTO kaos_events (conversation_id, seq, event_id, occurred_at, event_type, content, metadata)
    SELECT 'c1', i, 'e' || i, now(), 'user_message', '"x"', '{}' FROM generate_series(0, 9) i;
  INSERT INTO conversation_memberships (group_id, user_id, access_level)
    SELECT 'g' || i, 'u' || j, CASE j WHEN 0 THEN 'owner' ELSE 'reader' END FROM generate_series(0, 9) i, generate_series(0, 2) j;
  INSERT INTO person_groups (user_id, group_id, access_level) SELECT user_id, group_id, access_level FROM conversation_memberships;
  INSERT INTO conversation_membership_removals (group_id, user_id, access_level, created_at)
    SELECT 'g' || i, 'gone', 'reader', now() FROM generate_series(0, 5) i;
  INSERT INTO conversation_ownership_transfers (id, group_id, conversation_id, from_user_id, to_user_id, status)
    SELECT 't' || i, 'g' || i, 'g' || i, 'u0', 'u1', 'pending' FROM generate_series(0, 5) i;
  INSERT INTO conversation_meta (group_id, version, scene, scene_desc, name, description, conversation_created_at, default_timezone)
    SELECT 'g' || i, '1', 'group_chat', '{}', 'n', 'd', now(), 'UTC' FROM generate_series(0, 5) i;
  INSERT INTO request_outcomes (request_id, kind, status, group_key) SELECT 'r' || i, 'message', 'stored', 'g' || i FROM generate_series(0, 9) i;
  INSERT INTO ark_sessions (session_id) SELECT 'ark' || i FROM generate_series(0, 5) i;
  INSERT INTO stream_chunks (session_id, chunk) SELECT 'ark' || (i % 6), '{}' FROM generate_series(0, 11) i;`;

/** Every distributed table's rows, each as JSON, sorted. */
async function distributedRows(q: Queryable): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const entry of (await readDistribution(q)).values()) {
    if (entry.kind !== 'distributed') continue;
    const { rows } = await q.query<{ r: string }>(`SELECT to_jsonb(t)::text AS r FROM ${entry.tableName} t ORDER BY 1`);
    out[entry.tableName] = rows.map((row) => row.r);
  }
  return out;
}

/** Each table's keys, foreign keys, checks and indexes, by name, as the catalog defines them. */
async function definitions(q: Queryable): Promise<string[]> {
  const { rows } = await q.query<{ d: string }>(
    `SELECT conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) AS d FROM pg_constraint
      WHERE connamespace = 'public'::regnamespace AND conparentid = 0 AND contype <> 'n'
        AND NOT conrelid IN (SELECT inhrelid FROM pg_inherits)
     UNION ALL
     SELECT indexname || ' ' || regexp_replace(indexdef, ' ON (ONLY )?', ' ON ') FROM pg_indexes
      WHERE schemaname = 'public' AND tablename NOT IN (SELECT inhrelid::regclass::text FROM pg_inherits)
     ORDER BY 1`,
  );
  return rows.map((r) => r.d);
}

/** partitioned table -> [strategy, key column, partitions] */
async function partitioning(q: Queryable): Promise<Record<string, [string, string, number]>> {
  const { rows } = await q.query<{ name: string; strategy: string; col: string; n: number }>(
    `SELECT c.relname AS name, p.partstrat AS strategy, a.attname AS col,
            (SELECT count(*)::int FROM pg_inherits i WHERE i.inhparent = c.oid) AS n
       FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = p.partattrs[0] ORDER BY 1`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, [r.strategy, r.col, r.n]]));
}

test('every distributed table nothing blocks is hash-partitioned by its shard column, keeping rows, keys and indexes', async (t) => {
  const store = await migratedPglite();
  t.after(() => store.close());
  await store.exec(FIXTURE);
  const blocked = await blockedTables(store);
  const [rows, defs] = [await distributedRows(store), await definitions(store)];
  const settings = { STORE_LAYOUT: 'partitioned', STORE_LAYOUT_KEEP_PLAIN: Object.keys(blocked) } as const;
  await store.transaction((tx) => layOut(tx, settings, log));

  const expected = Object.fromEntries(
    [...(await readDistribution(store)).values()]
      .filter((e) => e.kind === 'distributed' && !blocked[e.tableName])
      .map((e) => [e.tableName, ['h', e.shardColumn!, PARTITIONS]]),
  );
  assert.ok(Object.keys(expected).length >= 8, 'the tables ready on main are partitioned');
  assert.deepEqual(await partitioning(store), expected);
  assert.deepEqual(await distributedRows(store), rows);
  assert.deepEqual(await definitions(store), defs);
  // a restart lays out nothing again
  assert.deepEqual(await store.transaction((tx) => layOut(tx, settings, log)), { partitioned: [], keptPlain: blocked });
});

test('a blocked table fails the partitioned layout, naming it and what blocks it, and nothing is converted', async (t) => {
  const store = await migratedPglite();
  t.after(() => store.close());
  // today's schema has no blocked table: one is made so, a registered table whose key leaves out
  // its shard column, as a new table's first draft might
  assert.deepEqual(await blockedTables(store), {}, "today's schema has no blocked table");
  await store.query('CREATE TABLE layout_probe (id text PRIMARY KEY, group_key text NOT NULL)');
  await store.query(
    `INSERT INTO store_distribution (table_name, kind, shard_column) VALUES ('layout_probe', 'distributed', 'group_key')`,
  );
  const blocked = await blockedTables(store);
  assert.deepEqual(Object.keys(blocked), ['layout_probe']);
  const before = await partitioning(store);
  const failure = await store.transaction((tx) => layOut(tx, { STORE_LAYOUT: 'partitioned' }, log)).catch((e) => e);
  assert.ok(failure instanceof Error, 'the layout failed');
  for (const [table, blockers] of Object.entries(blocked)) {
    assert.ok(failure.message.includes(`${table} (${blockers.join('; ')})`), `${table} named: ${failure.message}`);
  }
  assert.deepEqual(await partitioning(store), before);
});

test("a later migration's table is laid out, with its sequence, generated column, checks, options and foreign keys", async (t) => {
  const store = await migratedPglite();
  t.after(() => store.close());
  const layout = {
    STORE_LAYOUT: 'partitioned',
    STORE_LAYOUT_KEEP_PLAIN: Object.keys(await blockedTables(store)),
  } as const;
  const probe = {
    version: 9001,
    name: 'probe',
    sql: `CREATE TABLE probe_parent (g text NOT NULL, id text NOT NULL, PRIMARY KEY (g, id));
      CREATE TABLE probe (g text NOT NULL, id bigserial, body jsonb NOT NULL DEFAULT '{}',
        size int GENERATED ALWAYS AS (length(body::text)) STORED, parent text,
        CHECK (id > 0), PRIMARY KEY (g, id), FOREIGN KEY (g, parent) REFERENCES probe_parent (g, id) ON DELETE CASCADE)
        WITH (fillfactor = 70);
      CREATE INDEX probe_parent_idx ON probe (parent) WHERE parent IS NOT NULL;
      CREATE TABLE probe_child (g text NOT NULL, probe_id bigint NOT NULL, FOREIGN KEY (g, probe_id) REFERENCES probe (g, id));
      COMMENT ON TABLE probe IS 'a probe''s table';
      INSERT INTO store_distribution VALUES ('probe_parent', 'distributed', 'g'), ('probe', 'distributed', 'g'),
        ('probe_child', 'distributed', 'g');
      INSERT INTO probe_parent SELECT 'g' || i, 'p' FROM generate_series(0, 7) i;
      INSERT INTO probe (g, parent) SELECT 'g' || i, 'p' FROM generate_series(0, 7) i;
      INSERT INTO probe_child SELECT g, id FROM probe;`,
  };
  const plainDefs = await (async () => {
    const scratch = await migratedPglite();
    try {
      await migrate(scratch, log, [probe]);
      return await definitions(scratch);
    } finally {
      await scratch.close();
    }
  })();
  await migrate(store, log, [probe], layout);
  const parts = await partitioning(store);
  for (const table of ['probe_parent', 'probe', 'probe_child']) assert.deepEqual(parts[table], ['h', 'g', PARTITIONS]);
  assert.deepEqual(await definitions(store), plainDefs);
  const { rows } = await store.query<{ n: number; size: number; comment: string; options: string[] }>(
    `INSERT INTO probe (g, parent) VALUES ('g1', 'p') RETURNING id AS n, size,
       obj_description('probe'::regclass) AS comment, (SELECT reloptions FROM pg_class WHERE relname = 'probe_p0') AS options`,
  );
  assert.deepEqual(rows[0], { n: 9, size: 2, comment: "a probe's table", options: ['fillfactor=70'] });

  // a later ALTER reaches every partition; a key without the shard column is refused, as on Citus
  await migrate(store, log, [{ version: 9002, name: 'more', sql: 'ALTER TABLE probe ADD COLUMN note text' }], layout);
  const { rows: noted } = await store.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_attribute WHERE attname = 'note' AND attrelid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'probe'::regclass)`,
  );
  assert.equal(noted[0]!.n, PARTITIONS);
  await assert.rejects(
    migrate(
      store,
      log,
      [{ version: 9003, name: 'bad', sql: 'CREATE UNIQUE INDEX probe_body ON probe (body)' }],
      layout,
    ),
    /must include all partitioning columns/,
  );
});
