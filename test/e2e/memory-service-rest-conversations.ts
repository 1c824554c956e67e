import assert from 'node:assert/strict';
import type { World } from './memory-service-rest-world.js';

export interface Scenario {
  readonly feature: string;
  readonly name: string;
  readonly run: (w: World) => Promise<void>;
}

const ZERO = '00000000-0000-0000-0000-000000000000';
const text = (t: string) => [{ type: 'text', text: t }];

/** A conversation as the service answers it to its owner: these fields and no others. */
const ownedConversation = (b: any, title: string, id = b.id) => ({
  id,
  title,
  ownerUserId: 'alice',
  createdAt: b.createdAt,
  updatedAt: b.updatedAt,
  accessLevel: 'owner',
});

/** The root conversation with one message and a fork of it at that message (the deletion scenarios' start). */
async function rootWithFork(w: World): Promise<void> {
  await w.haveConversation('Root Conversation');
  w.vars.set('rootConversationId', w.conversationId);
  await w.call('POST', `${w.conv()}/messages`, { content: text('First message') });
  w.set('messageId', 'id');
  await w.call('POST', `${w.conv()}/messages/${w.get('messageId')}/fork`, {});
  w.set('forkConversationId', 'id');
}

const background = (w: World) => {
  w.asUser('alice');
};

const feature = 'Conversations REST API';
const scenario = (name: string, run: (w: World) => Promise<void>): Scenario => ({
  feature,
  name,
  run: async (w) => {
    background(w);
    await run(w);
  },
});

export const CONVERSATIONS: readonly Scenario[] = [
  scenario('Create a conversation', async (w) => {
    await w.call('POST', '/v1/conversations', { title: 'My First Conversation' });
    w.status(201);
    w.bodyIs((b) => ownedConversation(b, 'My First Conversation'));
  }),
  scenario('Create a conversation with metadata', async (w) => {
    await w.call('POST', '/v1/conversations', {
      title: 'Conversation with Metadata',
      metadata: { project: 'test-project', priority: 'high' },
    });
    w.status(201);
    w.bodyIs((b) => ownedConversation(b, 'Conversation with Metadata'));
  }),
  scenario('List conversations', async (w) => {
    await w.haveConversation('First Conversation');
    await w.haveConversation('Second Conversation');
    await w.call('GET', '/v1/conversations');
    w.status(200);
    w.atLeast(2);
    w.bodyIs((b) => ({
      nextCursor: null,
      data: [0, 1].map((i) => ownedConversation(b.data[i], b.data[i].title, b.data[i].id)),
    }));
  }),
  scenario('List conversations with pagination', async (w) => {
    for (const n of [1, 2, 3]) await w.haveConversation(`Conversation ${n}`);
    await w.call('GET', '/v1/conversations', undefined, { limit: 2 });
    w.status(200);
    w.count(2);
    const first = w.set('firstConversationId', 'data[0].id');
    await w.call('GET', '/v1/conversations', undefined, { limit: 2, after: first });
    w.status(200);
    w.atLeast(1);
  }),
  scenario('List conversations with query filter', async (w) => {
    await w.haveConversation('Project Alpha Discussion');
    await w.haveConversation('Project Beta Discussion');
    await w.call('GET', '/v1/conversations', undefined, { query: 'Alpha' });
    w.status(200);
    w.atLeast(1);
    w.contains('Project Alpha Discussion');
  }),
  scenario('Get a conversation', async (w) => {
    await w.haveConversation('Test Conversation');
    await w.call('GET', w.conv());
    w.status(200);
    w.bodyIs((b) => ownedConversation(b, 'Test Conversation', w.conversationId));
  }),
  scenario('Get non-existent conversation', async (w) => {
    await w.call('GET', w.conv(ZERO));
    w.status(404);
    w.errorCode('not_found');
  }),
  scenario('Get conversation without access', async (w) => {
    await w.conversationOwnedBy('bob');
    await w.call('GET', w.conv());
    w.status(403);
    w.errorCode('forbidden');
  }),
  scenario('Delete a conversation performs soft delete', async (w) => {
    await w.haveConversation('To Be Deleted');
    await w.call('DELETE', w.conv());
    w.status(204);
    await w.call('GET', w.conv());
    w.status(404);
    const rows = await w.sql<{ deleted_at: Date | null }>('SELECT id, deleted_at FROM conversations WHERE id = $1', [
      w.conversationId,
    ]);
    assert.equal(rows.length, 1);
    assert.notEqual(rows[0]!.deleted_at, null);
  }),
  scenario('Deleted conversation excluded from list', async (w) => {
    await w.haveConversation('Active Conversation');
    await w.haveConversation('To Be Deleted');
    await w.call('DELETE', w.conv());
    await w.call('GET', '/v1/conversations');
    w.status(200);
    w.count(1);
    // both rows are still stored (the suite counts its whole table; ours holds other scenarios' too)
    const rows = await w.sql('SELECT id, title, deleted_at FROM conversations WHERE id = ANY($1) ORDER BY created_at', [
      [...w.made],
    ]);
    assert.equal(rows.length, 2);
  }),
  scenario('Soft delete cascades to conversation group and memberships', async (w) => {
    await w.haveConversation('Test Conversation');
    const [{ group_id: groupId }] = (await w.sql<{ group_id: string }>(
      'SELECT COALESCE(group_id, id) AS group_id FROM conversations WHERE id = $1',
      [w.conversationId],
    )) as [{ group_id: string }];
    await w.call('DELETE', w.conv());
    w.status(204);
    // the group is soft-deleted: ours has no group table, so every conversation of the group is
    const group = await w.sql<{ deleted_at: Date | null }>(
      'SELECT deleted_at FROM conversations WHERE COALESCE(group_id, id) = $1',
      [groupId],
    );
    assert.equal(group.length, 1);
    assert.notEqual(group[0]!.deleted_at, null);
    // the membership is soft-deleted: ours has no deleted_at on memberships; what counts for a
    // client is that the member no longer reaches the group, which the listing shows
    await w.call('GET', '/v1/conversations');
    assert.ok(!(w.last.body.data as Array<{ id: string }>).some((c) => c.id === w.conversationId));
    const [{ count }] = (await w.sql<{ count: string }>(
      'SELECT count(*) AS count FROM messages WHERE conversation_id = $1',
      [w.conversationId],
    )) as [{ count: string }];
    assert.equal(Number(count), 0);
  }),
  scenario('Delete non-existent conversation', async (w) => {
    await w.call('DELETE', w.conv(ZERO));
    w.status(404);
    w.errorCode('not_found');
  }),
  scenario('Delete conversation without access', async (w) => {
    await w.conversationOwnedBy('bob');
    await w.call('DELETE', w.conv());
    w.status(403);
    w.errorCode('forbidden');
  }),
  scenario('Conversation response does not contain conversationGroupId', async (w) => {
    await w.call('POST', '/v1/conversations', { title: 'Test Conversation' });
    w.status(201);
    w.lacks('conversationGroupId');
  }),
  scenario('Deleting a conversation deletes all forks', async (w) => {
    await rootWithFork(w);
    await w.call('DELETE', w.conv(w.get('rootConversationId')));
    w.status(204);
    await w.call('GET', w.conv(w.get('rootConversationId')));
    w.status(404);
    await w.call('GET', w.conv(w.get('forkConversationId')));
    w.status(404);
  }),
  scenario('Deleting a fork deletes the entire fork tree', async (w) => {
    await rootWithFork(w);
    await w.call('DELETE', w.conv(w.get('forkConversationId')));
    w.status(204);
    await w.call('GET', w.conv(w.get('rootConversationId')));
    w.status(404);
    await w.call('GET', w.conv(w.get('forkConversationId')));
    w.status(404);
  }),
];
