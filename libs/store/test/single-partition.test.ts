import assert from 'node:assert/strict';
import { before, after, test } from 'node:test';
import {
  appendByShardGroup,
  appendKaosEvents,
  appendMessages,
  foldGroupKeywordCounts,
  appendStreamChunks,
  claimEpisodes,
  completeEpisode,
  deleteKaosSessions,
  findConversationMeta,
  findKaosSession,
  findRequestOutcome,
  indexMemories,
  indexMessages,
  insertConversation,
  insertEpisodes,
  insertKaosSession,
  kaosSessionEvents,
  keywordSearch,
  listMemberships,
  listMessages,
  listView,
  pendingMessages,
  forgetMessagesIn,
  listStreamChunks,
  PARTITIONS,
  purgeConversationGroups,
  recordRequestOutcomes,
  setMembership,
  shardGroupsOf,
  type Store,
  streamChunksBefore,
  turnEmbeddingInputs,
  vectorSearch,
  viewSegments,
  visibleTo,
  writeMessageVectorsByShardGroup,
} from '@memstream/store';
import { refuseUnknownConversations } from '../src/tables/conversations/import.js';
import { partitionedPglite } from './partitioned.js';
import { assertOnePartition, partitionsReached, type StatementReach } from './partitions-reached.js';
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

test("a group's history, and its messages no episode holds yet, are read on one partition", async () => {
  await assertOnePartition(store, ['messages'], (q) =>
    listMessages(q, { conversationId: 'chat-3', groupKey: 'chat-3', limit: 10, offset: 0, order: 'newest-first' }),
  );
  await assertOnePartition(store, ['messages', 'episodes'], (q) =>
    pendingMessages(q, 'chat-3', { groupKey: 'chat-3', limit: 10 }),
  );
});

test("a group's search reads one partition of each table it reads, by keyword and by vector", async () => {
  const filters = { conversationId: 'chat-3', groupKey: 'chat-3', kinds: ['message' as const] };
  // folded and embedded, so that the search reads the kept counts beside the pending rows, and
  // joins a vector's hit to its text
  await foldGroupKeywordCounts(store, 'chat-3', 100);
  await indexMessages(store, 'm', [
    { groupKey: 'chat-3', conversationId: 'chat-3', messageId: 'm-3', text: 'tomato', embedding: [1, 0, 0] },
  ]);
  await assertOnePartition(store, ['search_items', 'search_keyword_totals', 'search_keyword_pending'], (q) =>
    keywordSearch(q, 'garden tomato', filters, 5),
  );
  await assertOnePartition(store, ['search_vectors', 'search_items'], (q) =>
    vectorSearch(
      {
        query: q.query.bind(q),
        transaction: (work: Parameters<Store['transaction']>[0]) => work(q),
      } as unknown as Store,
      [1, 0, 0],
      'm',
      filters,
      5,
    ),
  );
});

test('a flush of several groups is stored in one statement per shard group, each on one partition', async () => {
  const shardGroups = shardGroupsOf({ STORE_LAYOUT: 'partitioned' })!;
  // interleaved, as a Kafka partition delivers them, with a retry of the first among them
  const items = [...Array(12).keys()].map((i) => ({
    requestId: `flush-r${i}`,
    message: chatMessage(`flush-${i % 6}`, `fm-${i}`, `flushed ${i}`),
  }));
  items.push({ requestId: 'flush-retry', message: items[0]!.message });
  const shards = await shardGroups(
    store,
    [...Array(6).keys()].map((i) => `flush-${i}`),
  );
  assert.ok(new Set(shards.values()).size > 1, 'the six groups fall in several partitions');

  const reach = await partitionsReached(store, (q) => appendByShardGroup(q, items, shardGroups));
  const appends = reach.filter((s) => s.partitions['messages'] !== undefined);
  assert.equal(appends.length, new Set(shards.values()).size, 'one statement per shard group');
  for (const s of appends)
    for (const table of ['messages', 'conversations'])
      assert.equal(s.partitions[table]?.length, 1, `${table}: ${s.partitions[table]?.join(', ')}`);

  // answered in the order given, each group numbered in its own order, the retry a duplicate
  const results = await appendByShardGroup(store, items, shardGroups);
  assert.deepEqual(
    results.map((r) => [r.message.message_id, r.message.seq, r.duplicate]),
    items.map((item, i) => [item.message.message_id, i === 12 ? 0 : Math.floor(i / 6), i === 12]),
  );
});

test("the indexer's writes of several groups lock and write one partition a statement, one per shard group", async () => {
  const shardGroups = shardGroupsOf({ STORE_LAYOUT: 'partitioned' })!;
  const groups = [...Array(6).keys()].map((i) => `vec-${i}`);
  const shards = new Set((await shardGroups(store, groups)).values());
  assert.ok(shards.size > 1, 'the six groups fall in several partitions');
  const at = new Date('2026-01-01T00:00:00Z');
  const memories: Array<{ memoryId: string; text: string; embedding: number[] }> = [];
  for (const group of groups) {
    await appendMessages(store, [
      { message: chatMessage(group, `${group}-m`, `the indexed words of ${group}`) },
      { message: chatMessage(group, `${group}-n`, 'and the turn after') },
    ]);
    const [episode] = await insertEpisodes(store, group, [
      { startSeq: 0, endSeq: 0, messageIds: [`${group}-m`], startTime: at, endTime: at, reason: 'flush' },
    ]);
    const [memory] = (await completeEpisode(store, episode!, [{ userId: null, title: group, content: 'a memory' }], {
      extractor: 'test',
      participants: [],
    }))!;
    memories.push({ memoryId: memory!.id, text: memory!.content, embedding: [0, 1, 0] });
  }
  // each second turn embedded with the first: the write locks that turn too (held)
  const turns = groups.flatMap((group) =>
    [`${group}-m`, `${group}-n`].map((messageId) => ({ conversationId: group, messageId })),
  );
  const messages = (await turnEmbeddingInputs(store, turns, true)).map((x) => ({ ...x, embedding: [1, 0, 0] }));
  assert.equal(messages.filter((x) => x.contextItemId !== null).length, groups.length);

  const locking = (reach: StatementReach[]) => reach.filter((s) => /\bFOR (NO KEY UPDATE|KEY SHARE)\b/.test(s.sql));
  // per shard group: the messages locked, their search rows locked, then the write, which locks nothing
  const vectorReach = await partitionsReached(store, (q) =>
    writeMessageVectorsByShardGroup(q, 'm', messages, shardGroups),
  );
  const vectorWrites = vectorReach.filter((s) => /INSERT INTO search_vectors/.test(s.sql));
  assert.equal(vectorWrites.length, shards.size, 'one vector write per shard group');
  assert.equal(locking(vectorReach).length, 2 * shards.size, 'two locking statements per shard group');
  for (const s of vectorWrites) {
    assert.doesNotMatch(s.sql, /\bFOR KEY SHARE\b/, 'the write reads rows locked before it');
    for (const table of ['messages', 'search_items', 'search_vectors'])
      assert.equal(s.partitions[table]?.length, 1, `${table}: ${s.partitions[table]?.join(', ')}`);
  }
  for (const s of locking(vectorReach))
    for (const [table, reached] of Object.entries(s.partitions))
      assert.equal(reached.length, 1, `${table}: ${reached.join(', ')}`);

  // a memory's group is read first (every partition, unlocked), then each shard group is locked and written
  const [lookup, ...rest] = await partitionsReached(store, (q) => indexMemories(q, 'm', memories, { shardGroups }));
  assert.match(lookup!.sql, /^SELECT id, group_key FROM episodic_memories WHERE id = ANY/);
  const memoryWrites = rest.filter((s) => s.partitions['episodic_memories'] !== undefined);
  assert.equal(memoryWrites.length, 2 * shards.size, 'a lock and a write per shard group');
  for (const s of memoryWrites)
    for (const [table, partitions] of Object.entries(s.partitions))
      assert.equal(partitions.length, 1, `${table}: ${partitions.join(', ')} reached by ${s.sql}`);
});

test("an import's messages hold their conversations a statement per group, each on one partition", async () => {
  const records = ['chat-1', 'chat-2', 'chat-5', 'chat-1'].map((conversationId) => ({ conversationId }));
  const reach = await partitionsReached(store, (q) => refuseUnknownConversations(q, records));
  const locks = reach.filter((s) => /\bFOR KEY SHARE\b/.test(s.sql));
  assert.equal(locks.length, 3, 'one lock per group');
  for (const s of locks)
    assert.equal(s.partitions['conversations']?.length, 1, s.partitions['conversations']?.join(', '));
});

test("a memory-service fork's view is walked and read on one partition, once its group is looked up", async () => {
  const base = { title: null, metadata: {} };
  await insertConversation(store, { ...base, id: 'ms-root', groupId: 'ms-root', fork: null });
  const root = { ...chatMessage('ms-root', 'r-1', 'before the fork'), source_api: 'memory-service' as const };
  const [first] = await appendMessages(store, [{ message: root }, { message: { ...root, message_id: 'r-2' } }]);
  await insertConversation(store, {
    ...base,
    id: 'ms-fork',
    groupId: 'ms-root',
    fork: {
      fromConversationId: 'ms-root',
      atMessageId: 'r-2',
      source: { conversationId: 'ms-root', seq: first!.message.seq },
    },
  });
  const reach = await partitionsReached(store, async (q) => {
    const segments = await viewSegments(q, 'ms-fork');
    assert.deepEqual(
      segments.map((s) => [s.conversationId, s.maxSeq]),
      [
        ['ms-root', first!.message.seq],
        ['ms-fork', null],
      ],
    );
    await listView(q, segments, { hideAgentOnly: true }, { limit: 10 });
  });
  // a memory-service client names a conversation by id alone: finding its group reads every
  // partition (on Citus, every shard); what follows names the group
  const [lookup, ...named] = reach;
  assert.match(lookup!.sql, /SELECT group_key FROM conversations WHERE id = \$1/);
  assert.equal(named.length, 2);
  for (const s of named)
    for (const [table, partitions] of Object.entries(s.partitions))
      assert.equal(partitions.length, 1, `${table}: ${partitions.join(', ')} reached by ${s.sql}`);
});

test("the fold of a group's keyword counts takes and counts on one partition", async () => {
  await assertOnePartition(store, ['search_keyword_pending', 'search_keyword_totals'], (q) =>
    foldGroupKeywordCounts({ transaction: (work) => work(q) } as Pick<Store, 'transaction'>, 'chat-5', 100),
  );
});

test("an extractor's claim of a group's episode and its completion lock and write one partition", async () => {
  const at = new Date('2026-01-01T00:00:00Z');
  const [episode] = await insertEpisodes(store, 'chat-6', [
    { startSeq: 0, endSeq: 0, messageIds: ['m-6'], startTime: at, endTime: at, reason: 'flush' },
  ]);
  await assertOnePartition(store, ['episodes', 'episodic_memories'], async (q) => {
    const [claimed] = await claimEpisodes(q, {
      group: episode!.group_key,
      ids: [episode!.id],
      limit: 1,
      leaseMs: 60_000,
    });
    await completeEpisode(q, claimed!, [{ userId: null, title: 'garden', content: 'a tomato' }], {
      extractor: 'test',
      participants: [],
    });
  });
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

test("forgetting turns locks, empties and reopens their episodes on their group's partition", async () => {
  // eight conversations of three turns, in episodes [m0, m1] and [m2], each episode with a memory
  await store.exec(
    `INSERT INTO conversations (id, source_api, next_seq, group_key)
       SELECT 'forget-' || g, 'evermemos', 3, 'forget-' || g FROM generate_series(0, 7) g;
     INSERT INTO messages (conversation_id, seq, message_id, sender_id, sender_name, role, content, created_at, source_api, group_key)
       SELECT c.id, s, 'm' || s, 'u1', 'Ann', 'user', 'words ' || s, timestamptz '2025-01-01' + s * interval '1 minute', 'evermemos', c.id
         FROM conversations c, generate_series(0, 2) s WHERE c.id LIKE 'forget-%';
     INSERT INTO episodes (conversation_id, start_seq, end_seq, message_ids, start_time, end_time, close_reason, group_key)
       SELECT c.id, e.s, e.s + cardinality(e.ids) - 1, e.ids, now(), now(), 'flush', c.id
         FROM conversations c, (VALUES (0, ARRAY['m0', 'm1']), (2, ARRAY['m2'])) AS e(s, ids) WHERE c.id LIKE 'forget-%';
     INSERT INTO episodic_memories (id, episode_id, conversation_id, version, content, occurred_at, ended_at, message_ids, extractor, group_key)
       SELECT 'mem-' || e.id, e.id, e.conversation_id, 1, 'a memory', now(), now(), e.message_ids, 'test', e.group_key
         FROM episodes e WHERE e.conversation_id LIKE 'forget-%'`,
  );
  // the turn m1 goes from the episode [m0, m1] (reopened), m2 from [m2] (emptied): each one's memory goes too
  const reach = await partitionsReached(store, (q) =>
    forgetMessagesIn(q, {
      conversationId: 'forget-3',
      senderId: 'u1',
      matching: { sql: (p) => `message_id <> ${p}`, value: 'm0' },
    }),
  );
  const episodeSide = reach.filter((s) => /FOR UPDATE|DELETE FROM episod|UPDATE episodes/.test(s.sql));
  assert.equal(episodeSide.length, 4, 'the lock, the memories, the emptied and the reopened episodes');
  for (const s of episodeSide)
    for (const [table, partitions] of Object.entries(s.partitions))
      assert.equal(partitions.length, 1, `${table}: ${partitions.join(', ')} reached by ${s.sql}`);
});

test("a purge of groups locks each group's conversations on its partition", async () => {
  const groups = Array.from({ length: 8 }, (_, i) => `chat-${i}`);
  const reach = await partitionsReached(store, (q) => purgeConversationGroups(q, groups));
  const locks = reach.filter((s) => /FOR UPDATE/.test(s.sql));
  assert.equal(locks.length, groups.length, 'a lock a group');
  for (const s of locks) assert.equal(s.partitions.conversations?.length, 1, s.sql);
});

test('a lookup without the shard column reaches every partition, and the check sees it', async () => {
  const [lookup] = await partitionsReached(store, (q) => findRequestOutcome(q, 'r-1'));
  assert.equal(lookup?.partitions['request_outcomes']?.length, PARTITIONS);
  await assert.rejects(
    assertOnePartition(store, ['request_outcomes'], (q) => findRequestOutcome(q, 'r-1')),
    /request_outcomes: request_outcomes_p0, request_outcomes_p1/,
  );
});
