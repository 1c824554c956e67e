import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  appendMessages,
  claimDueEpisodes,
  claimEpisodes,
  completeEpisode,
  insertEpisodes,
  PARTICIPANTS,
  type Queryable,
  removeMembership,
  retentionPasses,
  setMembership,
  type Store,
} from '@memstream/store';
import { partitionedPglite } from './partitioned.js';
import { partitionsReached } from './partitions-reached.js';
import { chatMessage } from './search-fixtures.js';

/**
 * The work queues that span groups (due episodes, retention of memories and summaries, eviction of
 * removed memberships) find their groups without a lock and lock each group's rows by the shard
 * key: on the partitioned layout every statement taking a row lock reaches one partition, as Citus
 * runs a row lock only on one shard (docs/store.md, rule 2).
 */
let store: Store;
const GROUPS = ['chat-a', 'chat-b', 'chat-c'];
const LOCK = /\bFOR\s+(NO\s+KEY\s+|KEY\s+)?(UPDATE|SHARE)\b/i;
const at = new Date('2026-01-01T00:00:00Z');

before(async () => {
  store = await partitionedPglite();
  for (const group of GROUPS) {
    await appendMessages(store, [{ message: chatMessage(group, 'm-1', 'the garden tomato') }]);
    const [episode] = await insertEpisodes(store, group, [
      { startSeq: 0, endSeq: 0, messageIds: ['m-1'], startTime: at, endTime: at, reason: 'flush' },
    ]);
    // extracted once, so each group has a memory; a second episode stays due
    const [claimed] = await claimEpisodes(store, { group, ids: [episode!.id], limit: 1, leaseMs: 60_000 });
    await store.transaction((tx) =>
      completeEpisode(tx, claimed!, [{ userId: null, title: 'garden', content: 'a tomato' }], {
        extractor: 'test',
        participants: [],
      }),
    );
    await insertEpisodes(store, group, [
      { startSeq: 1, endSeq: 1, messageIds: ['m-2'], startTime: at, endTime: at, reason: 'flush' },
    ]);
    await store.query(
      `INSERT INTO memory (conversation_id, start_sequence, end_sequence, created_at, group_key) VALUES ($1, 0, 0, $2, $1)`,
      [group, at],
    );
    await setMembership(store, group, 'bob', 'reader');
    await removeMembership(store, group, 'bob');
  }
});
after(() => store.close());

/** Asserts that `work` takes row locks, each in a statement reaching one partition of every table. */
async function assertLocksOnOnePartition(work: (q: Queryable) => Promise<unknown>): Promise<number> {
  const locking = (await partitionsReached(store, work)).filter((s) => LOCK.test(s.sql));
  assert.ok(locking.length > 0, 'the work took no row lock');
  for (const s of locking)
    for (const [table, partitions] of Object.entries(s.partitions))
      assert.equal(partitions.length, 1, `${table}: ${partitions.join(', ')} reached by ${s.sql}`);
  return locking.length;
}

test("the due episodes of several groups are claimed each group's on one partition", async () => {
  const locks = await assertLocksOnOnePartition((q) => claimDueEpisodes(q, { limit: 10, leaseMs: 60_000 }));
  assert.equal(locks, GROUPS.length, 'a claim per group');
});

test('retention of memories and summaries locks each group on one partition', async () => {
  const passes = retentionPasses({
    periods: { memories: 'P1D', summaries: 'P1D' },
    overrides: [],
    now: new Date('2100-01-01T00:00:00Z'),
    batchSize: 10,
  });
  assert.deepEqual(
    passes.map((p) => p.kind),
    ['memories', 'summaries'],
  );
  for (const pass of passes) await assertLocksOnOnePartition((q) => pass.batch(q, undefined));
});

test('eviction of removed memberships locks each group on one partition', async () => {
  const removals = PARTICIPANTS.find((p) => p.table === 'conversation_membership_removals')?.evict?.goes;
  assert.ok(removals && 'take' in removals);
  await assertLocksOnOnePartition((q) => removals.take(q, new Date('2100-01-01T00:00:00Z'), 10));
});
