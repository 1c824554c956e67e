import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  appendMessages,
  GENERIC_PLAN,
  GENERIC_PLAN_SETTINGS,
  PgStore,
  type AppendItem,
  type Store,
} from '@memstream/store';
import { freshDatabase, waitFor } from '../../../test/helpers/infra.js';
import {
  APPEND_PRUNED,
  APPEND_UNPRUNED,
  appendParameters,
  GENERIC_PLAN_MAX_ITEMS,
} from '../src/tables/conversations/messages.js';
import { log, migratedStore } from './search-fixtures.js';
import { explainRolledBack, nodesOf, type PlanNode } from './explain.js';

const items = (from: number, count: number, conversations: number): AppendItem[] =>
  Array.from({ length: count }, (_, k) => {
    const i = from + k;
    return {
      requestId: `req-${i}`,
      message: {
        conversation_id: `c${i % conversations}`,
        message_id: `m${i}`,
        sender_id: `u${i % 7}`,
        sender_name: '',
        role: 'user',
        content: `message ${i} about the rollout plan and the load test`,
        created_at: new Date(Date.UTC(2025, 0, 1, 0, 0, i % 60)),
        refer_list: [],
        metadata: {},
        source_api: 'evermemos',
      },
    };
  });

// A backlog is stored in batches into a table that keeps growing: the check for messages stored
// before must cost each batch its own size, not the size of the table. The check is a join (Citus
// runs no LATERAL probe beside unnest()), and for a table a few times the batch a hash join over
// the whole table is what the planner rightly picks; once the table is much larger than the batch
// it must probe the index for each message, and read nothing else of it.
test('storing a batch into a large table looks up each of its messages, and reads nothing else of the table', async (t) => {
  const store = await migratedStore(t);
  await appendMessages(store, items(0, 1_000, 64));
  // 100,000 more rows, copies of the first thousand under other numbers and ids: the table a
  // backlog meets, made in one statement rather than a hundred batches.
  await store.query(
    `INSERT INTO messages (conversation_id, seq, message_id, sender_id, sender_name, role, content, created_at,
                           refer_list, metadata, source_api, group_key)
     SELECT conversation_id, seq + k * 1000, message_id || '.' || k, sender_id, sender_name, role, content, created_at,
            refer_list, metadata, source_api, group_key
     FROM messages, generate_series(1, 100) AS k`,
  );
  // As autovacuum leaves a table that has taken a load: its visibility map set, which makes a scan
  // of the whole index look cheap to the planner.
  await store.query('VACUUM ANALYZE messages');

  // 190 new messages and 10 stored before (m0..m9), which the statement must find
  const batch = [...items(1_000, 190, 64), ...items(0, 10, 64)];
  for (const [name, sql] of [
    ['naming its groups', APPEND_PRUNED.large],
    ['naming none', APPEND_UNPRUNED.large],
  ] as const) {
    const plan = await explainRolledBack(store, sql, appendParameters(batch));
    const nodes = [...nodesOf(plan.Plan)];

    const scans = nodes.filter((n) => n['Relation Name'] === 'messages' && n['Node Type'] !== 'ModifyTable');
    assert.ok(scans.length > 0, `the statement ${name} reads the messages table`);
    for (const n of scans)
      assert.equal(
        n['Index Name'],
        'messages_conversation_id_message_id_key',
        `${n['Node Type']} of messages, ${name}`,
      );
    const entriesRead = scans.reduce((sum, n) => sum + (n['Actual Rows'] ?? 0) * (n['Actual Loops'] ?? 1), 0);
    // a scan of the index would return its 101,000 entries
    assert.ok(entriesRead <= batch.length, `${name}: read ${entriesRead} entries for a batch of ${batch.length}`);
  }

  // and the ten stored before are found, with the numbers they were stored under
  const results = await appendMessages(store, batch);
  const dups = results.filter((r) => r.duplicate);
  assert.deepEqual(
    dups.map((r) => r.message.message_id),
    items(0, 10, 64).map((i) => i.message.message_id),
  );
  assert.deepEqual(
    dups.map((r) => r.message.seq),
    [...Array(10).keys()].map(() => 0),
  );
});

// A trigger that fires for each stored row (a foreign key's check is one) costs a backlog its cost
// times the batch: the conversation's foreign key check was a sixth of the statement's server time.
// The statement upserts each conversation itself, so nothing needs checking row by row.
test('storing a batch fires no trigger once per message', async (t) => {
  const store = await migratedStore(t);
  await appendMessages(store, items(0, 200, 8));
  const batch = items(200, 500, 8);
  const { Triggers: triggers = [] } = await explainRolledBack(store, APPEND_PRUNED.large, appendParameters(batch));
  const perRow = triggers.filter((tr) => tr.Calls >= batch.length);
  assert.deepEqual(
    perRow.map((tr) => `${tr['Trigger Name']} (${tr.Calls} calls)`),
    [],
    'triggers fired once per message',
  );
  // the statement copies the keyword rows to the pending counts itself (search-rows.ts): no trigger does
  assert.deepEqual(
    triggers.filter((tr) => tr['Trigger Name'].startsWith('search_keywords')).map((tr) => tr['Trigger Name']),
    [],
  );
});

test('a connection that plans generically is replaced after its lifetime, so its plans are made again', async (t) => {
  const store = new PgStore({
    connectionString: await freshDatabase(t),
    maxConnections: 2,
    statementTimeoutMs: 10_000,
    log,
    genericPlanLifetimeMs: 100,
  });
  t.after(() => store.close());
  const pid = async () =>
    (await store.query<{ pid: number }>(`${GENERIC_PLAN} SELECT pg_backend_pid() AS pid`)).rows[0]!.pid;
  const first = await pid();
  await waitFor('another connection', async () => ((await pid()) !== first ? true : undefined));
});

test('a statement marked for a generic plan runs on a connection that plans generically; the others are planned for their parameters', async (t) => {
  const store = await migratedStore(t);
  const mode = async (sql: string) => (await store.query<{ mode: string }>(sql)).rows[0]!.mode;
  assert.equal(await mode(`SELECT current_setting('plan_cache_mode') AS mode`), 'force_custom_plan');
  assert.equal(await mode(`${GENERIC_PLAN} SELECT current_setting('plan_cache_mode') AS mode`), 'force_generic_plan');
  // inside a transaction, the transaction's connection
  assert.equal(
    await store.transaction(
      async (tx) =>
        (await tx.query<{ mode: string }>(`${GENERIC_PLAN} SELECT current_setting('plan_cache_mode') AS mode`)).rows[0]!
          .mode,
    ),
    'force_custom_plan',
  );
});

// A small batch's statement is planned once, for no batch in particular: whatever it is given and
// however large the tables grow, that plan must look each message up by its key, never read a
// table or an index whole.
/**
 * The reads of `messages` in the plan PostgreSQL keeps for `small` on a connection of the
 * generic-plan pool (its settings), other than a probe of the key for each message: none may be
 * in a small batch's plan. Prepared and explained as EXECUTE, so that the plan is made for no
 * values: EXPLAIN (GENERIC_PLAN) with values bound plans for them (a NULL list of groups became
 * a condition that matches nothing).
 */
async function wholeReadsOfGenericPlan(store: Store, small: string): Promise<string[]> {
  const plan = await store.transaction(async (tx) => {
    for (const [name, value] of Object.entries(GENERIC_PLAN_SETTINGS))
      await tx.query('SELECT set_config($1, $2, true)', [name, value]);
    await tx.query(`PREPARE append_plan AS ${small}`);
    const nulls = appendParameters([]).map(() => 'NULL');
    const { rows } = await tx.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      `EXPLAIN (FORMAT JSON) EXECUTE append_plan(${nulls.join(', ')})`,
    );
    await tx.query('DEALLOCATE append_plan');
    return rows[0]!['QUERY PLAN'][0]!.Plan;
  });
  const nodes = [...nodesOf(plan)];
  const reads = nodes.filter(
    (n) =>
      (n['Relation Name'] === 'messages' && n['Node Type'] !== 'ModifyTable') ||
      n['Index Name']?.startsWith('messages') === true,
  );
  const probe = (n: PlanNode) =>
    n['Index Name'] === 'messages_conversation_id_message_id_key' &&
    /conversation_id = .*message_id = .*group_key = /.test(n['Index Cond'] ?? '');
  assert.ok(reads.some(probe), 'messages are looked up by their key');
  return reads
    .filter((n) => !probe(n))
    .map((n) => `${n['Node Type']} on ${n['Index Name'] ?? n['Relation Name']} (${n['Index Cond'] ?? ''})`);
}

test('the generic plan of a small batch reads no table and no index whole', async (t) => {
  const store = await migratedStore(t);
  // The plain layout's statement, planned on the empty tables of a first start and kept for the
  // connection's life: a list of the batch's groups beside the join was taken as a condition on
  // the key's index (its third column), read whole for every batch while the table grew.
  assert.deepEqual(await wholeReadsOfGenericPlan(store, APPEND_UNPRUNED.small), [], 'planned on empty tables');
  // Near-empty tables make every index look alike (see PgStore): each connection lives a few
  // seconds, so the plan kept is one made for the tables as they have grown, analysed or not.
  for (let from = 0; from < 2_000; from += 1_000) await appendMessages(store, items(from, 1_000, 64));
  for (const small of [APPEND_PRUNED.small, APPEND_UNPRUNED.small])
    assert.deepEqual(await wholeReadsOfGenericPlan(store, small), [], 'planned on 2,000 messages never analysed');
  for (let from = 2_000; from < 10_000; from += 1_000) await appendMessages(store, items(from, 1_000, 64));
  await store.query('VACUUM ANALYZE');
  for (const small of [APPEND_PRUNED.small, APPEND_UNPRUNED.small])
    assert.deepEqual(await wholeReadsOfGenericPlan(store, small), [], 'planned on 10,000 messages');

  // and the statement does what the other does
  const stored = await appendMessages(store, items(10_000, GENERIC_PLAN_MAX_ITEMS, 8));
  assert.deepEqual(
    stored.map((r) => r.duplicate),
    Array(GENERIC_PLAN_MAX_ITEMS).fill(false),
  );
  const again = await appendMessages(store, items(10_000, 3, 8), { pruneByGroups: false });
  assert.deepEqual(
    again.map((r) => [r.duplicate, r.message.seq]),
    stored.slice(0, 3).map((r) => [true, r.message.seq]),
  );
});
