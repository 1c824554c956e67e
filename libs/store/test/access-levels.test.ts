import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  accessLevelOf,
  accessLevelsOf,
  appendMessages,
  conversationsVisibleTo,
  insertConversation,
  setMembership,
  type Store,
  visibleTo,
  withScopeListed,
} from '@memstream/store';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';
import { chatMessage } from './search-fixtures.js';

/** Every kind of standing: owners, a reader, a fork's writer, a deleted conversation, a claimed id, a private chat. */
async function standings(store: Store): Promise<void> {
  await appendMessages(store, [{ message: chatMessage('room', 'm1', 'hello') }]);
  await setMembership(store, 'room', 'alice', 'owner');
  await setMembership(store, 'room', 'bob', 'reader');
  // a memory-service root and its fork: the fork's group is the root's
  const base = { title: null, metadata: {} };
  await insertConversation(store, { ...base, id: 'root', groupId: 'root', fork: null });
  await insertConversation(store, {
    ...base,
    id: 'fork',
    groupId: 'root',
    fork: { fromConversationId: 'root', atMessageId: null, source: null },
  });
  await setMembership(store, 'root', 'carol', 'writer');
  // a deleted conversation its owner no longer reaches, and a claimed id with nothing written
  await appendMessages(store, [{ message: chatMessage('gone', 'm1', 'bye') }]);
  await setMembership(store, 'gone', 'alice', 'owner');
  await store.query(`UPDATE conversations SET deleted_at = now() WHERE id = 'gone'`);
  await setMembership(store, 'claimed', 'dave', 'owner');
  await appendMessages(store, [{ message: chatMessage('private:erin', 'm1', 'note to self') }]);
}

// Open streams are re-checked in one call (accessLevelsOf); each answer must be what the single
// check (accessLevelOf, one statement of its own) says for that pair, in every kind of standing.
test("many pairs' levels are each the single check's level, in order", async () => {
  const store = await migratedPglite();
  try {
    await standings(store);

    const pairs = ['room', 'root', 'fork', 'gone', 'claimed', 'private:erin', 'nowhere'].flatMap((conversationId) =>
      ['alice', 'bob', 'carol', 'dave', 'erin'].map((userId) => ({ conversationId, userId })),
    );
    const one = [];
    for (const p of pairs) one.push(await accessLevelOf(store, p.conversationId, p.userId));
    assert.deepEqual(await accessLevelsOf(store, pairs), one);
    // and the cases are there to compare: owners, readers, a fork's writer, nothing after deletion
    assert.deepEqual(
      [one[0], one[1], one[12], one[15], one[23], one[29]],
      ['owner', 'reader', 'writer', undefined, 'owner', 'owner'],
    );
  } finally {
    await store.close();
  }
});

// A search reads a person's scope once, as a list (withScopeListed): the list must be exactly the
// ids the scope's condition (visibleTo) keeps, in every kind of standing, and a scope longer than
// the list's limit stays a condition.
test("a person's scope read as a list is what the scope's condition keeps", async () => {
  const store = await migratedPglite();
  try {
    await standings(store);
    // alice writes in the root's group too, claims a group and keeps a private chat
    await setMembership(store, 'root', 'alice', 'writer');
    await setMembership(store, 'claimed-too', 'alice', 'owner');
    await appendMessages(store, [{ message: chatMessage('private:alice', 'm1', 'note to self') }]);

    const candidates = [
      'room',
      'root',
      'fork',
      'gone',
      'claimed',
      'claimed-too',
      'private:alice',
      'private:erin',
      'nowhere',
    ];
    for (const person of ['alice', 'bob', 'carol', 'dave', 'erin', 'nobody']) {
      const params: unknown[] = [candidates];
      const { rows } = await store.query<{ id: string }>(
        `SELECT id FROM unnest($1::text[]) AS x(id) WHERE ${visibleTo('id', params, person)} ORDER BY id`,
        params,
      );
      const kept = rows.map((r) => r.id);
      const listed = await conversationsVisibleTo(store, person, 100);
      assert.deepEqual([...(listed ?? [])].sort(), kept, person);
      const filters = await withScopeListed(store, {
        kinds: ['message'],
        visibleTo: person,
        conversationIds: ['room'],
      });
      assert.deepEqual(filters.conversationIds, kept.includes('room') ? ['room'] : [], `${person}'s asked list`);
      assert.equal(filters.visibleTo, undefined);
    }
    // alice's scope is the room, the root and its fork, her claimed group and her private chat
    assert.deepEqual([...((await conversationsVisibleTo(store, 'alice', 100)) ?? [])].sort(), [
      'claimed-too',
      'fork',
      'private:alice',
      'room',
      'root',
    ]);
    // longer than the limit: not listed
    assert.equal(await conversationsVisibleTo(store, 'alice', 4), undefined);
    assert.deepEqual(await conversationsVisibleTo(store, 'bob', 1), ['room']);
  } finally {
    await store.close();
  }
});
