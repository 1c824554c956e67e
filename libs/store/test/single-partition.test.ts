import assert from 'node:assert/strict';
import { before, after, test } from 'node:test';
import {
  appendKaosEvents,
  appendMessages,
  foldGroupKeywordCounts,
  appendStreamChunks,
  deleteKaosSessions,
  findConversationMeta,
  findKaosSession,
  findRequestOutcome,
  insertKaosSession,
  kaosSessionEvents,
  listMemberships,
  listStreamChunks,
  PARTITIONS,
  recordRequestOutcomes,
  setMembership,
  type Store,
  streamChunksBefore,
  visibleTo,
} from '@memstream/store';
import { partitionedPglite } from './partitioned.js';
import { assertOnePartition, partitionsReached } from './partitions-reached.js';
import { chatMessage } from './search-fixtures.js';

/**
 * On the partitioned layout, a hot statement names its group and so reaches one partition of each
 * table it touches: what keeps it on one shard on Citus. A statement of a table still blocked
 * (docs/store.md) joins this list once the table is partitioned: one line each.
 */
let store: Store;
const KAOS = { agent: 'agent-1', sessionId: 's-1', conversationId: 'kaos_e1', appName: 'app', userId: 'u-1' };
const event = (id: string) => ({
  event_id: id,
  timestamp: '2026-01-01T00:00:00Z',
  event_type: 'user_message',
  content: id,
  metadata: {},
});

before(async () => {
  store = await partitionedPglite();
  await store.transaction(async (tx) => {
    for (let i = 0; i < 8; i++) {
      await insertKaosSession(tx, { ...KAOS, sessionId: `s-${i}`, conversationId: `kaos_e${i}` });
      await setMembership(tx, `group-${i}`, 'alice', 'owner');
      await setMembership(tx, `group-${i}`, 'bob', 'reader');
    }
    const session = (await findKaosSession(tx, KAOS.agent, KAOS.sessionId, { forUpdate: true }))!;
    await appendKaosEvents(tx, session, [event('e1'), event('e2')], { maxEvents: 100, mayDrop: true });
  });
  // chats in eight groups, their keyword counts still waiting for the fold
  for (let i = 0; i < 8; i++)
    await appendMessages(store, [{ message: chatMessage(`chat-${i}`, `m-${i}`, `the garden tomato ${i}`) }]);
});
after(() => store.close());

test("a KAOS conversation's history reads one partition", async () => {
  await assertOnePartition(store, ['kaos_events'], (q) => kaosSessionEvents(q, KAOS.conversationId));
});

test('a KAOS append finds its session by name and writes one partition', async () => {
  await assertOnePartition(store, ['kaos_session_names', 'kaos_sessions', 'kaos_events'], async (q) => {
    const session = (await findKaosSession(q, KAOS.agent, KAOS.sessionId, { forUpdate: true }))!;
    await appendKaosEvents(q, session, [event('e3')], { maxEvents: 100, mayDrop: true });
  });
});

test("an append of a group's messages writes one partition of each table it touches", async () => {
  await assertOnePartition(store, ['conversations', 'messages', 'search_items', 'search_keyword_pending'], (q) =>
    appendMessages(q, [
      { message: chatMessage('chat-3', 'm-x', 'more garden words'), requestId: 'r-append' },
      { message: chatMessage('chat-3', 'm-y', 'a tomato') },
    ]),
  );
});

test("the fold of a group's keyword counts takes and counts on one partition", async () => {
  await assertOnePartition(
    store,
    ['search_keyword_pending', 'search_keyword_totals', 'search_keyword_frequencies'],
    (q) => foldGroupKeywordCounts({ transaction: (work) => work(q) } as Pick<Store, 'transaction'>, 'chat-5', 100),
  );
});

test("a KAOS session's deletion frees its name and marks its conversation, one partition each", async () => {
  await assertOnePartition(store, ['kaos_session_names', 'kaos_sessions', 'conversations'], async (q) => {
    const session = (await findKaosSession(q, KAOS.agent, 's-3', { forUpdate: true }))!;
    await deleteKaosSessions(q, [session.conversation_id]);
  });
});

test("a group's memberships read and written on one partition", async () => {
  await assertOnePartition(store, ['conversation_memberships'], (q) => listMemberships(q, 'group-3'));
  await assertOnePartition(store, ['conversation_memberships', 'person_groups'], (q) =>
    setMembership(q, 'group-3', 'carol', 'writer'),
  );
});

test("a person's groups are read on one partition of person_groups", async () => {
  const reach = await partitionsReached(store, (q) => {
    const params: unknown[] = [];
    return q.query(`SELECT c.id FROM conversations c WHERE ${visibleTo('c.id', params, 'bob')}`, params);
  });
  // the conversations of those groups are read by group_key, a shard per group (not pruned here)
  assert.deepEqual(
    reach.map((s) => s.partitions.person_groups?.length),
    [1],
  );
});

test("an ARK session's relayed chunks are written and read on one partition", async () => {
  await assertOnePartition(store, ['ark_sessions', 'stream_chunks'], async (q) => {
    const [seq] = await appendStreamChunks(q, 'ark-3', [{ delta: 'a' }]);
    await streamChunksBefore(q, [{ sessionId: 'ark-3', seq: seq! }]);
    await listStreamChunks(q, 'ark-3');
  });
});

test("a group's metadata is read on one partition", async () => {
  await assertOnePartition(store, ['conversation_meta'], (q) => findConversationMeta(q, 'group-3'));
});

test("a write's outcome is recorded on one partition", async () => {
  const outcome = {
    request_id: 'r-1',
    kind: 'message' as const,
    status: 'stored' as const,
    group_id: 'group-3',
    message_id: 'm-1',
    duplicate: false,
    result: { seq: 1 },
    error_code: null,
    error_message: null,
  };
  await assertOnePartition(store, ['request_outcomes'], (q) => recordRequestOutcomes(q, [outcome]));
});

test('a lookup without the shard column reaches every partition, and the check sees it', async () => {
  const [lookup] = await partitionsReached(store, (q) => findRequestOutcome(q, 'r-1'));
  assert.equal(lookup?.partitions['request_outcomes']?.length, PARTITIONS);
  await assert.rejects(
    assertOnePartition(store, ['request_outcomes'], (q) => findRequestOutcome(q, 'r-1')),
    /request_outcomes: request_outcomes_p0, request_outcomes_p1/,
  );
});
