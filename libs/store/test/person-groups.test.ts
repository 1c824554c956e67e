import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { type TestContext, test } from 'node:test';
import type { ExportDataRecord } from '@memstream/schemas';
import {
  beginImportScope,
  claimConversation,
  eraseKeyedRecords,
  importRecords,
  insertConversation,
  loadMigrations,
  migrate,
  purgeConversationGroups,
  type Queryable,
  type Store,
  removeMembership,
  requestTransfer,
  setMembership,
  settleTransfer,
  visibleTo,
} from '@memstream/store';
import { migratedPglite, migratedPgliteWithout } from '../../../test/helpers/migrated-pglite.js';
import { log, migratedStore } from './search-fixtures.js';
import { sqlTexts } from './sql-statements.js';

type Row = { user_id: string; group_id: string; access_level: string };

const inverse = async (q: Queryable): Promise<Row[]> =>
  (await q.query<Row>('SELECT user_id, group_id, access_level FROM person_groups ORDER BY user_id, group_id')).rows;

/** person_groups as it ought to be: the memberships, by person. */
const recount = async (q: Queryable): Promise<Row[]> =>
  (
    await q.query<Row>(
      'SELECT user_id, group_id, access_level FROM conversation_memberships ORDER BY user_id, group_id',
    )
  ).rows;

const visible = async (q: Queryable, userId: string): Promise<string[]> => {
  const params: unknown[] = [];
  const where = visibleTo('c.id', params, userId);
  const { rows } = await q.query<{ id: string }>(
    `SELECT c.id FROM conversations c WHERE ${where} ORDER BY c.id`,
    params,
  );
  return rows.map((r) => r.id);
};

const conversation = (q: Queryable, id: string) =>
  insertConversation(q, { id, groupId: id, title: null, metadata: {}, fork: null });

test('migration 0043 gives every membership main wrote its row in person_groups, and drops the SQL function', async () => {
  const store = await migratedPgliteWithout(43);
  try {
    // as main's claimConversation, setMembership and ownership transfer wrote them
    await store.query(
      `INSERT INTO conversations (id, source_api, metadata, group_key) VALUES ('g1', 'memory-service', '{}', 'g1')`,
    );
    await store.query(
      `INSERT INTO conversations (id, source_api, group_id, metadata, group_key)
       VALUES ('g1-fork', 'memory-service', 'g1', '{}', 'g1')`,
    );
    await store.query(
      `INSERT INTO conversation_memberships (group_id, user_id, access_level) VALUES
         ('g1', 'alice', 'manager'), ('g1', 'bob', 'owner'), ('g1', 'carol', 'reader'),
         ('claimed', 'alice', 'owner'), ('private:dave', 'dave', 'owner')`,
    );
    const before = await recount(store);

    await migrate(
      store,
      log,
      (await loadMigrations()).filter((m) => m.version === 43),
    );

    assert.equal(before.length, 5);
    assert.deepEqual(await inverse(store), before);
    const { rows } = await store.query(`SELECT 1 FROM pg_proc WHERE proname = 'conversations_visible_to'`);
    assert.equal(rows.length, 0);
    const { rows: registry } = await store.query(
      `SELECT kind, shard_column FROM store_distribution WHERE table_name = 'person_groups'`,
    );
    assert.deepEqual(registry, [{ kind: 'distributed', shard_column: 'user_id' }]);
    // the reads of after 0043 find the migrated groups there
    assert.deepEqual(await visible(store, 'carol'), ['g1', 'g1-fork']);
    // a claimed group with nothing written yet is reached by its id (no conversation row to list here)
    const params: unknown[] = [];
    const { rows: ids } = await store.query<{ id: string }>(
      `SELECT id FROM unnest(ARRAY['claimed', 'g1', 'other']) AS v(id) WHERE ${visibleTo('v.id', params, 'alice')} ORDER BY id`,
      params,
    );
    assert.deepEqual(
      ids.map((r) => r.id),
      ['claimed', 'g1'],
    );
  } finally {
    await store.close();
  }
});

const stores: Array<[string, (t: TestContext) => Promise<Store>]> = [
  [
    'PGlite',
    async (t) => {
      const store = await migratedPglite();
      t.after(() => store.close());
      return store;
    },
  ],
  ['native PostgreSQL', migratedStore],
];

for (const [name, open] of stores)
  test(`${name}: person_groups equals the memberships by person after every kind of membership write`, async (t) => {
    const store = await open(t);
    const holds = async (after: string) => assert.deepEqual(await inverse(store), await recount(store), after);
    await conversation(store, 'g1');
    await conversation(store, 'g2');
    await conversation(store, 'g3');

    assert.equal(await claimConversation(store, 'g1', 'alice'), true);
    assert.equal(await claimConversation(store, 'g2', 'bob'), true);
    assert.equal(await claimConversation(store, 'g3', 'bob'), true);
    // a second claim of a held group writes nothing
    assert.equal(await claimConversation(store, 'g1', 'bob'), false);
    await holds('claims');
    assert.equal((await inverse(store)).length, 3);

    await setMembership(store, 'g1', 'bob', 'reader');
    await setMembership(store, 'g1', 'carol', 'writer');
    await setMembership(store, 'g2', 'alice', 'reader');
    await holds('grants');
    await setMembership(store, 'g1', 'bob', 'manager');
    await holds('a level changed');
    assert.equal(await removeMembership(store, 'g1', 'carol'), true);
    await holds('a revocation');

    await store.transaction(async (tx) => {
      const offer = await requestTransfer(tx, {
        id: '00000000-0000-4000-8000-000000000001',
        groupId: 'g1',
        conversationId: 'g1',
        from: 'alice',
        to: 'bob',
      });
      await settleTransfer(tx, offer, 'accepted');
    });
    await holds('an ownership transfer');
    assert.deepEqual(
      (await inverse(store)).filter((r) => r.group_id === 'g1'),
      [
        { user_id: 'alice', group_id: 'g1', access_level: 'manager' },
        { user_id: 'bob', group_id: 'g1', access_level: 'owner' },
      ],
    );

    // alice's shared memberships (g1 as a manager now, g2 as a reader) go with her erasure
    await store.transaction((tx) => eraseKeyedRecords(tx, 'alice'));
    await holds('an erasure');
    assert.deepEqual(
      (await inverse(store)).map((r) => r.user_id),
      ['bob', 'bob', 'bob'],
    );

    await store.transaction((tx) => purgeConversationGroups(tx, ['g2']));
    await holds('a purge');
    assert.deepEqual(
      (await inverse(store)).map((r) => r.group_id),
      ['g1', 'g3'],
    );

    await store.transaction(async (tx) => {
      const scope = beginImportScope();
      await importRecords(tx, scope, 'conversation', [
        {
          kind: 'conversation',
          id: 'g4',
          sourceApi: 'memory-service',
          groupId: null,
          nextSeq: 0,
          title: null,
          metadata: {},
          createdAt: '2025-01-01T10:00:00.000000Z',
          updatedAt: '2025-01-01T10:00:00.000000Z',
          deletedAt: null,
        },
      ] as ExportDataRecord[] as never);
      const member = (userId: string, accessLevel: string) => ({
        kind: 'membership',
        groupId: 'g4',
        userId,
        accessLevel,
        createdAt: '2025-01-01T10:00:00.000000Z',
      });
      await importRecords(tx, scope, 'membership', [member('erin', 'owner'), member('bob', 'reader')] as never);
    });
    await holds('an import');
    assert.deepEqual(await visible(store, 'erin'), ['g4']);
    assert.deepEqual(await visible(store, 'bob'), ['g1', 'g3', 'g4']);
  });

test('only membership-rows.ts writes conversation_memberships or person_groups', () => {
  const root = resolve(import.meta.dirname, '../../..');
  const writes = /\b(INSERT INTO|UPDATE|DELETE FROM)\s+(conversation_memberships|person_groups)\b/;
  const writers = sqlTexts(root, resolve(root, 'libs/store/src'))
    .filter((text) => writes.test(text.sql))
    .map((text) => text.file);
  assert.ok(writers.length >= 5, `only ${writers.length} writes found: the reader lost them`);
  assert.deepEqual([...new Set(writers)], ['libs/store/src/tables/memberships/membership-rows.ts']);
});
