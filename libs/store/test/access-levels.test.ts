import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accessLevelOf, accessLevelsOf, appendMessages, insertConversation, setMembership } from '@memstream/store';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';
import { chatMessage } from './search-fixtures.js';

// Open streams are re-checked in one call (accessLevelsOf); each answer must be what the single
// check (accessLevelOf, one statement of its own) says for that pair, in every kind of standing.
test("many pairs' levels are each the single check's level, in order", async () => {
  const store = await migratedPglite();
  try {
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
