import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createLogger } from '@memstream/logging';
import {
  citusPlan,
  distributeOnCitus,
  openStore,
  readDistribution,
  readForeignKeys,
  type TableDistribution,
} from '@memstream/store';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';

const log = createLogger({ service: 'test', level: 'silent' });

test('the Citus plan lays out reference tables first, each table after those its foreign keys name', async (t) => {
  const store = await migratedPglite();
  t.after(() => store.close());
  const [registry, edges] = await Promise.all([readDistribution(store), readForeignKeys(store)]);
  const plan = citusPlan(registry, edges);
  const position = new Map(plan.map((step, i) => [step.table, i]));

  const laidOut = [...registry.values()].filter((r) => r.kind !== 'local').map((r) => r.tableName);
  assert.deepEqual(
    [...position.keys()].sort(),
    laidOut.sort(),
    'every reference and distributed table once, no local one',
  );
  const firstDistributed = plan.findIndex((s) => s.kind === 'distributed');
  assert.ok(
    plan.slice(firstDistributed).every((s) => s.kind === 'distributed'),
    'reference tables come first',
  );
  for (const step of plan) {
    assert.equal(step.shardColumn, registry.get(step.table)?.shardColumn ?? null, `${step.table}'s shard column`);
  }

  const sameKind = edges.filter(
    (e) =>
      e.table !== e.target && registry.get(e.table)?.kind === registry.get(e.target)?.kind && position.has(e.table),
  );
  assert.ok(sameKind.length > 0, 'the schema has foreign keys between tables of one kind to order by');
  for (const e of sameKind) {
    assert.ok(Number(position.get(e.target)) < Number(position.get(e.table)), `${e.target} before ${e.table}`);
  }
});

test('foreign keys in a cycle are refused with the tables named', () => {
  const row = (tableName: string): [string, TableDistribution] => [
    tableName,
    { tableName, kind: 'distributed', shardColumn: 'group_key' },
  ];
  const registry = new Map([row('a'), row('b'), row('c')]);
  assert.throws(
    () =>
      citusPlan(registry, [
        { table: 'a', target: 'b' },
        { table: 'b', target: 'a' },
        { table: 'c', target: 'c' },
      ]),
    /foreign keys form a cycle among a, b$/,
  );
});

test('a database without the citus extension is refused before any table is touched', async (t) => {
  const store = await migratedPglite();
  t.after(() => store.close());
  await assert.rejects(distributeOnCitus(store, log), /citus extension is not installed in this database/);
});

test('the embedded store refuses STORE_DISTRIBUTION=citus without opening anything', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'memstream-citus-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  for (const embedded of ['postgres', 'pglite'] as const) {
    await assert.rejects(
      openStore(
        {
          DATABASE_URL: undefined,
          DATABASE_STATEMENT_TIMEOUT_MS: 30_000,
          DATA_DIR: dataDir,
          EMBEDDED_STORE: embedded,
          STORE_DISTRIBUTION: 'citus',
        },
        log,
      ),
      /STORE_DISTRIBUTION=citus needs DATABASE_URL set to a Citus coordinator/,
    );
  }
  assert.deepEqual(readdirSync(dataDir), [], 'no store was created under DATA_DIR');
});

test('STORE_DISTRIBUTION=citus beside STORE_LAYOUT=partitioned is refused before connecting', async () => {
  await assert.rejects(
    openStore(
      {
        // nothing listens here: the refusal must come before any connection is tried
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
        DATA_DIR: tmpdir(),
        DATABASE_STATEMENT_TIMEOUT_MS: 30_000,
        STORE_DISTRIBUTION: 'citus',
        STORE_LAYOUT: 'partitioned',
      },
      log,
    ),
    /two layouts of the same tables: set one of them/,
  );
});
