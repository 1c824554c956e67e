import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  appendMessages,
  eraseOwnedConversations,
  eraseSentMessages,
  foldKeywordCounts,
  forgetMessages,
  indexMemories,
  insertConversation,
  keywordSearch,
  purgeConversationGroups,
  queueMemoriesToEmbed,
  setMembership,
  type NewMessage,
  type Store,
} from '@memstream/store';
import { extractEpisode } from './extract-fixture.js';
import { chatMessage, countsDiffer, migratedStore } from './search-fixtures.js';
import { testShardGroups } from '../../../harness/store-layout.js';

/**
 * Since migration 0039 no trigger keeps the BM25 statistics: each writer of search_items counts
 * the words it adds or removes itself (search-rows.ts). After every kind of write, through the
 * code that makes it, the kept counts (folded and pending) must equal a recount of search_items
 * from nothing, per group, conversation, kind and audience.
 */
const AT = new Date(Date.UTC(2025, 0, 15, 10));

const said = (conversation: string, id: string, sender: string, content: string): NewMessage => ({
  ...chatMessage(conversation, id, content),
  sender_id: sender,
  sender_name: sender,
});

/** An agent's note for itself (its memory channel): a row of the agent's own audience. */
const note = (conversation: string, id: string, content: string): NewMessage => ({
  ...said(conversation, id, 'bot', content),
  role: 'assistant',
  metadata: { ms: { channel: 'memory', visibility: 'agent', client_id: 'bot' } },
  source_api: 'memory-service',
});

/** An episode of the conversation's messages, extracted by the writers: one memory per person. */
async function extract(store: Store, conversation: string, messageIds: string[], people: string[]) {
  const span = { startSeq: 0, endSeq: 0, messageIds, startTime: AT, endTime: AT, reason: 'flush' as const };
  const memories = people.map((userId) => ({ userId, title: '', content: `${userId} likes the garden` }));
  return extractEpisode(store, conversation, span, memories, people);
}

const vector = [0.1, 0.2, 0.3];

test('the keyword statistics equal a recount after appends, folds, memory rewrites, deletions, an erasure and a purge', async (t) => {
  const store = await migratedStore(t);
  const check = async (when: string) => assert.deepEqual(await countsDiffer(store), [], when);

  // a memory-service root with a fork in its group (the fork's counts are kept under the root's
  // group), and two chats that are their own groups; bob owns chat-b and writes in chat-a
  await insertConversation(store, { id: 'root', groupId: 'root', title: null, metadata: {}, fork: null });
  await insertConversation(store, {
    id: 'fork',
    groupId: 'root',
    title: null,
    metadata: {},
    fork: { fromConversationId: 'root', atMessageId: null, source: null },
  });
  await setMembership(store, 'chat-b', 'bob', 'owner');
  // the converter names a memory-service message's group: the stored conversation's (a fork's root)
  const ms = (m: NewMessage): NewMessage => ({ ...m, source_api: 'memory-service', group_key: 'root' });
  await appendMessages(
    store,
    [
      said('chat-a', 'a0', 'alice', 'the garden tomato harvest'),
      said('chat-a', 'a1', 'bob', 'tomato tomato piano lesson'),
      said('chat-a', 'a2', 'alice', 'a flight to lisbon for the museum'),
      said('chat-b', 'b0', 'bob', 'coffee and the marathon'),
      ms(said('root', 'r0', 'dora', 'the quokka naps in the garden')),
      ms(said('fork', 'f0', 'dora', 'the quokka found the kitchen')),
      { ...note('fork', 'f1', 'dora mentioned the quokka and the garden'), group_key: 'root' },
    ].map((message) => ({ message })),
  );
  await check('appended, every count pending');
  const { rows: forkGroups } = await store.query<{ group_key: string }>(
    `SELECT DISTINCT group_key FROM search_keyword_pending WHERE conversation_id = 'fork'`,
  );
  assert.deepEqual(forkGroups, [{ group_key: 'root' }], "a fork's counts are its group's");
  assert.equal(await foldKeywordCounts(store, 3, testShardGroups()), 3, 'a part folded');
  await check('a part folded');

  // memories: indexed, rewritten with other words (a redone extraction's text), queued without a vector
  const memories = await extract(store, 'chat-a', ['a0', 'a1'], ['alice', 'bob']);
  await indexMemories(
    store,
    'test-model',
    memories.map((m) => ({ memoryId: m.id, text: m.content, embedding: vector })),
  );
  await check('memories indexed');
  await indexMemories(store, 'test-model', [
    { memoryId: memories[0]!.id, text: 'alice plays the piano at the museum', embedding: vector },
  ]);
  await check("a memory's text changed");
  await queueMemoriesToEmbed(store, [{ memoryId: memories[1]!.id, text: 'bob runs the marathon with coffee' }]);
  await check("another memory's text changed, its vector queued");
  await indexMemories(store, 'test-model', [
    { memoryId: memories[1]!.id, text: 'bob runs the marathon with coffee', embedding: vector },
  ]);
  await check('the same text again');
  await foldKeywordCounts(store, 1_000, testShardGroups());
  await check('every count folded');

  // a message still pending and one folded deleted; the episode holding a1 is extracted again
  await appendMessages(store, [{ message: said('chat-a', 'a3', 'alice', 'late words about the garden') }]);
  await forgetMessages(store, { conversationId: 'chat-a', messageId: 'a3' });
  await check('a pending message forgotten');
  await forgetMessages(store, { conversationId: 'chat-a', messageId: 'a2' });
  await check('a folded message forgotten');

  // bob's erasure: his words in alice's chat (and the memories of the episode holding them), his own chat whole
  await store.transaction((tx) => eraseSentMessages(tx, 'bob', 10));
  await check("bob's sent messages erased");
  await store.transaction((tx) => eraseOwnedConversations(tx, 'bob', 10));
  await check("bob's own conversations erased");
  const left = await store.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM search_keyword_totals WHERE group_key = 'chat-b'`,
  );
  assert.equal(left.rows[0]!.n, 0, "no statistics are left of bob's chat");

  // a purge of the memory-service group, root and fork, pending and folded rows alike
  await appendMessages(store, [{ message: ms(said('fork', 'f2', 'dora', 'one more quokka')) }]);
  await store.transaction((tx) => purgeConversationGroups(tx, ['root']));
  await check('a group purged');
  for (const table of ['search_keyword_totals', 'search_keyword_pending']) {
    const { rows } = await store.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${table} WHERE group_key = 'root'`,
    );
    assert.equal(rows[0]!.n, 0, `${table} keeps nothing of the purged group`);
  }

  const found = await keywordSearch(store, 'garden', { kinds: ['message'] }, 10);
  assert.deepEqual(
    found.map((h) => h.message_ids[0]),
    ['a0'],
    'search finds what is left',
  );
});
