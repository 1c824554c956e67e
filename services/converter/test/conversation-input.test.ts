import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { conversationHarness } from './conversation-harness.js';
import type { ConversationInput, MemoryServiceMessage } from '@memstream/schemas';
import {
  appendStreamChunks,
  claimConversation,
  findConversation,
  findRequestOutcome,
  listMemberships,
  setMembership,
  viewSegments,
  listView,
} from '@memstream/store';

const message = (text: string): MemoryServiceMessage => ({
  message_id: randomUUID(),
  role: 'user',
  visibility: 'user',
  channel: 'history',
  client_id: null,
  user_id: 'alice',
  epoch: null,
  content: [{ type: 'text', text }],
  metadata: {},
  parent_message_id: null,
  created_at: new Date().toISOString(),
});

/** A person's append: their messages are theirs (the sender rule), as the API writes them. */
const append = (id: string, actor: string | undefined, messages: MemoryServiceMessage[]): ConversationInput => ({
  id: randomUUID(),
  type: 'conversation.messages.appended',
  occurred_at: new Date().toISOString(),
  ...(actor ? { actor: { kind: 'user' as const, id: actor } } : {}),
  data: {
    conversation_id: id,
    group_id: id,
    messages: messages.map((m) => ({ ...m, user_id: actor ?? m.user_id })),
    create_if_missing: true,
    owner_user_id: actor ?? null,
  },
});

test('an append that would create a conversation does not take an id another family holds, nor its members', async (t) => {
  const { store, apply } = await conversationHarness(t);
  // bob's ARK session: streamed chunks and his ownership, no stored message yet
  await appendStreamChunks(store, 'session-b', [{ t: 1 }]);
  assert.equal(await claimConversation(store, 'session-b', 'bob'), true);

  const intrusion = append('session-b', 'alice', [message('mine now?')]);
  await apply(intrusion);
  const outcome = await findRequestOutcome(store, intrusion.id);
  assert.deepEqual([outcome?.status, outcome?.error_code], ['failed', 'RESOURCE_NOT_FOUND']);
  assert.deepEqual(
    (await listMemberships(store, 'session-b')).map((m) => [m.user_id, m.access_level]),
    [['bob', 'owner']],
  );
  assert.equal(await findConversation(store, 'session-b'), undefined, 'no conversation was made of the session');

  const created: ConversationInput = {
    id: randomUUID(),
    type: 'conversation.created',
    occurred_at: new Date().toISOString(),
    data: {
      conversation_id: 'session-b',
      group_id: 'session-b',
      title: 't',
      metadata: {},
      owner_user_id: 'alice',
      fork: null,
    },
  };
  await apply(created);
  assert.equal((await findRequestOutcome(store, created.id))?.error_code, 'CONFLICT');
  assert.deepEqual(
    (await listMemberships(store, 'session-b')).map((m) => m.user_id),
    ['bob'],
  );
});

test('a redelivered append stores once, and a refused one stays refused after access is granted', async (t) => {
  const { store, apply } = await conversationHarness(t);
  const first = append('c1', 'alice', [message('one'), message('two')]);
  await apply(first);
  await apply(first);
  const view = await listView(
    store,
    await viewSegments(store, 'c1'),
    { channel: 'history', hideAgentOnly: true },
    { limit: 10 },
  );
  assert.deepEqual(
    view.items.map((m) => m.content_text),
    ['one', 'two'],
  );

  const refused = append('c1', 'bob', [message('bob writes')]);
  await apply(refused);
  assert.equal((await findRequestOutcome(store, refused.id))?.error_code, 'RESOURCE_NOT_FOUND');
  await setMembership(store, 'c1', 'bob', 'writer');
  await apply(refused); // a redelivery of the refused event
  assert.equal((await findRequestOutcome(store, refused.id))?.status, 'failed');
  const after = await listView(
    store,
    await viewSegments(store, 'c1'),
    { channel: 'history', hideAgentOnly: true },
    { limit: 10 },
  );
  assert.equal(after.items.length, 2, 'the refused message was not stored by its redelivery');
});

test("an admin's delete and restore apply to the whole group without a membership, once each: redelivered, they keep their outcome; a restore of a live group is refused", async (t) => {
  const { store, apply } = await conversationHarness(t);
  await apply(append('g1', 'bob', [message('hello')]));
  const change = (action: 'delete' | 'restore'): ConversationInput => ({
    id: randomUUID(),
    type: 'conversation.admin.changed',
    occurred_at: new Date().toISOString(),
    // an admin, member of nothing: the API checked the role
    actor: { kind: 'user', id: 'root' },
    data: { conversation_id: 'g1', group_id: 'g1', action },
  });
  const deleting = change('delete');
  await apply(deleting);
  await apply(deleting);
  const deleted = await findRequestOutcome(store, deleting.id);
  assert.deepEqual([deleted?.status, deleted?.result], ['stored', { conversations: 1 }]);
  assert.equal(await findConversation(store, 'g1'), undefined, 'deleted for everyone');

  const restoring = change('restore');
  await apply(restoring);
  await apply(restoring);
  assert.deepEqual((await findRequestOutcome(store, restoring.id))?.result, { conversations: 1 });
  assert.equal((await findConversation(store, 'g1'))?.id, 'g1');
  const again = change('restore');
  await apply(again);
  assert.equal((await findRequestOutcome(store, again.id))?.error_code, 'CONFLICT');
});

test("an append to a fork numbers on in the fork's own row, in its root's group: the id stays one conversation", async (t) => {
  const { store, apply, count } = await conversationHarness(t);
  const [first, second] = [message('one'), message('two')];
  await apply(append('root', 'alice', [first, second]));
  const fork: ConversationInput = {
    id: randomUUID(),
    type: 'conversation.created',
    occurred_at: new Date().toISOString(),
    actor: { kind: 'user', id: 'alice' },
    data: {
      conversation_id: 'the-fork',
      group_id: 'root',
      title: null,
      metadata: {},
      owner_user_id: 'alice',
      fork: { from_conversation_id: 'root', at_message_id: second.message_id },
    },
  };
  await apply(fork);
  assert.equal((await findRequestOutcome(store, fork.id))?.status, 'stored');
  // as the API publishes it: keyed by the group, which the fork shares with its root
  const onFork = { ...append('the-fork', 'alice', [message('three')]) };
  await apply({ ...onFork, data: { ...onFork.data, group_id: 'root' } } as ConversationInput);
  assert.equal((await findRequestOutcome(store, onFork.id))?.status, 'stored');
  assert.equal(await count(`SELECT count(*) AS n FROM conversations WHERE id = 'the-fork'`), 1);
  assert.equal(
    await count(`SELECT count(*) AS n FROM messages WHERE conversation_id = 'the-fork' AND group_key = 'root'`),
    1,
  );
  // outcomes are kept in the group the event names, not under the fork's own id: the fork's
  // creation is recorded by the handler, the append by the append statement
  const outcomeGroups = await store.query<{ request_id: string; group_key: string }>(
    'SELECT request_id, group_key FROM request_outcomes WHERE request_id = ANY($1::text[]) ORDER BY group_key',
    [[fork.id, onFork.id]],
  );
  assert.deepEqual(outcomeGroups.rows.map((r) => [r.request_id === fork.id ? 'fork' : 'append', r.group_key]).sort(), [
    ['append', 'root'],
    ['fork', 'root'],
  ]);
});
