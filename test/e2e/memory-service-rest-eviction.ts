import assert from 'node:assert/strict';
import type { Scenario } from './memory-service-rest-conversations.js';
import { messages as featureOf } from './memory-service-rest-messages.js';
import type { World } from './memory-service-rest-world.js';

/**
 * The suite's eviction feature (eviction-rest.feature), as alice, the suite's admin. Its SQL
 * checks are asked of our schema: a conversation group is the conversations sharing
 * COALESCE(group_id, id); a soft-deleted membership is a row of conversation_membership_removals
 * (a removed member has no access, the row only records until when they had it); and where the
 * service queues a `vector_store_delete` task for an evicted group, memstream removes the group's
 * search rows and vectors in the eviction's own transaction, so the check is that none is left
 * and that the eviction counted exactly the groups it should have.
 */
const eviction = featureOf('Data Eviction', async (w) => {
  w.asUser('alice');
});

const EVICT = '/v1/admin/evict';
const groups = (resourceTypes: string[], more: Record<string, unknown> = {}) => ({
  retentionPeriod: 'P90D',
  resourceTypes,
  ...more,
});

/** "I have a conversation with title": as the current user, its group kept as `conversationGroupId`. */
async function haveConversation(w: World, title: string): Promise<string> {
  await w.haveConversation(title);
  const group = await w.groupOf();
  w.vars.set('conversationGroupId', group);
  return group;
}

/**
 * Moves a group's deletion back in time, as the suite's UPDATE of conversation_groups.deleted_at
 * does, and its messages' storage with it: a conversation deleted 100 days ago stored its messages
 * before then. (memstream keeps a group that stored a message after its deletion, which a family
 * without deletion of its own may do; a deletion moved back alone would look like that.)
 */
async function backdateGroup(w: World, group: string, daysAgo: number): Promise<void> {
  const rows = await w.sql<{ id: string }>(
    `UPDATE conversations SET deleted_at = now() - make_interval(days => $2) WHERE COALESCE(group_id, id) = $1 AND deleted_at IS NOT NULL RETURNING id`,
    [group, daysAgo],
  );
  assert.ok(rows.length > 0, `group ${group} is not soft-deleted`);
  await w.sql(
    `UPDATE messages SET stored_at = now() - make_interval(days => $2 + 1) WHERE conversation_id = ANY($1::text[])`,
    [rows.map((r) => r.id), daysAgo],
  );
}

/** "the conversation was soft-deleted N days ago": its owner deletes it, then the deletion is backdated. */
async function softDeletedDaysAgo(w: World, daysAgo: number): Promise<void> {
  await w.ownerDeletes(w.conversationOwner!, w.conversationId!);
  await backdateGroup(w, await w.groupOf(), daysAgo);
}

/** "I have N conversations soft-deleted D days ago". */
async function manySoftDeleted(w: World, count: number, daysAgo: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await w.haveConversation(`Test Conversation ${i}`);
    await softDeletedDaysAgo(w, daysAgo);
  }
}

/** "the membership for user ... was soft-deleted N days ago": its owner removes it, then the removal is backdated. */
async function membershipRemovedDaysAgo(w: World, userId: string, daysAgo: number): Promise<void> {
  await w.ownerRemovesMember(userId);
  const rows = await w.sql(
    `UPDATE conversation_membership_removals SET removed_at = now() - make_interval(days => $3)
     WHERE group_id = $1 AND user_id = $2 RETURNING user_id`,
    [await w.groupOf(), userId, daysAgo],
  );
  assert.ok(rows.length > 0, `no removed membership of ${userId}`);
}

const count = async (w: World, sql: string, params: unknown[]): Promise<number> =>
  Number((await w.sql<{ n: string }>(sql, params))[0]!.n);

/** "SELECT COUNT(*) FROM conversation_groups WHERE id = ...". */
const groupRows = (w: World, group: string) =>
  count(w, 'SELECT count(*) AS n FROM conversations WHERE COALESCE(group_id, id) = $1', [group]);

/** "SELECT COUNT(*) FROM conversation_memberships WHERE conversation_group_id = ... [AND user_id = ...]", removed ones included. */
const membershipRows = (w: World, group: string, userId?: string) =>
  count(
    w,
    `SELECT (SELECT count(*) FROM conversation_memberships WHERE group_id = $1 AND ($2::text IS NULL OR user_id = $2))
          + (SELECT count(*) FROM conversation_membership_removals WHERE group_id = $1 AND ($2::text IS NULL OR user_id = $2)) AS n`,
    [group, userId ?? null],
  );

/** "SELECT COUNT(*) FROM conversation_groups WHERE deleted_at IS NOT NULL", over the scenario's own conversations. */
const softDeletedLeft = (w: World) =>
  count(w, 'SELECT count(*) AS n FROM conversations WHERE id = ANY($1::text[]) AND deleted_at IS NOT NULL', [
    [...w.made],
  ]);

/**
 * The suite's `vector_store_delete` checks: nothing of the group is left in the search index, and
 * the scenario's eviction (the latest job) purged exactly `groupsPurged` groups.
 */
async function vectorsGone(w: World, group: string, groupsPurged: number): Promise<void> {
  assert.equal(
    await count(
      w,
      `SELECT count(*) AS n FROM search_items s WHERE s.conversation_id = $1
          OR s.conversation_id IN (SELECT id FROM conversations WHERE group_id = $1)`,
      [group],
    ),
    0,
    'search rows of the evicted group',
  );
  const [job] = await w.sql<{ counts: { groups: number }; status: string }>(
    'SELECT counts, status FROM eviction_jobs ORDER BY created_at DESC LIMIT 1',
  );
  assert.equal(job?.status, 'completed');
  assert.equal(job?.counts.groups, groupsPurged, `groups the eviction purged: ${JSON.stringify(job?.counts)}`);
}

export const EVICTION: readonly Scenario[] = [
  eviction('Evict conversation groups past retention period (default response)', async (w) => {
    const old = await haveConversation(w, 'Old Conversation');
    await softDeletedDaysAgo(w, 100);
    const recent = await haveConversation(w, 'Recent Conversation');
    await softDeletedDaysAgo(w, 10);
    await w.call('POST', EVICT, groups(['conversation_groups'], { justification: 'Test cleanup' }));
    w.status(204);
    assert.equal(await groupRows(w, old), 0, 'the old group is gone');
    assert.equal(await groupRows(w, recent), 1, 'the recent group is kept');
    await vectorsGone(w, old, 1);
  }),
  eviction('Evict with SSE progress stream', async (w) => {
    await haveConversation(w, 'To Evict');
    await softDeletedDaysAgo(w, 100);
    await w.callAccepting('text/event-stream', 'POST', EVICT, groups(['conversation_groups']));
    w.status(200);
    assert.ok(w.contentType.includes('text/event-stream'), `content type ${w.contentType}`);
    const progress = w.last.text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .flatMap((line) => {
        try {
          const event = JSON.parse(line.slice(6)) as { progress?: unknown };
          return typeof event.progress === 'number' ? [event.progress] : [];
        } catch {
          return [];
        }
      });
    assert.ok(progress.length > 0, `no progress events: ${w.last.text}`);
    assert.equal(progress.at(-1), 100, `the final progress: ${w.last.text}`);
  }),
  eviction('Concurrent eviction is safe', async (w) => {
    await manySoftDeleted(w, 100, 100);
    const answers = await w.callConcurrently(3, 'POST', EVICT, groups(['conversation_groups']));
    assert.deepEqual(
      answers.map((a) => a.status),
      [204, 204, 204],
      answers.map((a) => a.text).join('\n'),
    );
    assert.equal(await softDeletedLeft(w), 0, 'soft-deleted conversations left');
  }),
  eviction('Non-admin user cannot evict', async (w) => {
    w.asUser('charlie');
    await w.call('POST', EVICT, groups(['conversation_groups']));
    w.status(403);
  }),
  eviction('Invalid retention period format rejected', async (w) => {
    await w.call('POST', EVICT, { retentionPeriod: '90 days', resourceTypes: ['conversation_groups'] });
    w.status(400);
  }),
  eviction('Unknown resource type rejected', async (w) => {
    await w.call('POST', EVICT, groups(['messages']));
    w.status(400);
  }),
  eviction('Cascade deletes child records', async (w) => {
    const group = await haveConversation(w, 'Parent Conversation');
    await w.hasMessage('Message 1');
    await w.hasMessage('Message 2');
    const id = w.conversationId!;
    assert.equal(await count(w, 'SELECT count(*) AS n FROM messages WHERE conversation_id = $1', [id]), 2);
    await softDeletedDaysAgo(w, 100);
    await w.call('POST', EVICT, groups(['conversation_groups']));
    w.status(204);
    assert.equal(
      await count(w, 'SELECT count(*) AS n FROM messages m WHERE m.conversation_id = $1 OR m.conversation_id = $2', [
        id,
        group,
      ]),
      0,
      'messages of the evicted group',
    );
  }),
  eviction('Evict soft-deleted memberships', async (w) => {
    const group = await haveConversation(w, 'Membership Test');
    await w.sharedByOwner('bob', 'reader');
    await w.sharedByOwner('charlie', 'reader');
    await membershipRemovedDaysAgo(w, 'bob', 100);
    await membershipRemovedDaysAgo(w, 'charlie', 10);
    await w.call('POST', EVICT, groups(['conversation_memberships']));
    w.status(204);
    assert.equal(await membershipRows(w, group, 'bob'), 0, "bob's membership, removed past the period");
    assert.equal(await membershipRows(w, group, 'charlie'), 1, "charlie's membership, removed within it");
    assert.equal(await groupRows(w, group), 1, 'the group itself stays');
  }),
  eviction('Evict multiple resource types in single request', async (w) => {
    const a = await haveConversation(w, 'Group To Evict');
    await softDeletedDaysAgo(w, 100);
    const b = await haveConversation(w, 'Membership Host');
    await w.sharedByOwner('bob', 'reader');
    await membershipRemovedDaysAgo(w, 'bob', 100);
    await w.call('POST', EVICT, groups(['conversation_groups', 'conversation_memberships']));
    w.status(204);
    assert.equal(await groupRows(w, a), 0, 'group A is gone');
    assert.equal(await membershipRows(w, b, 'bob'), 0, "bob's membership of group B is gone");
    assert.equal(await groupRows(w, b), 1, 'group B stays');
  }),
  eviction('Empty eviction returns 204', async (w) => {
    await w.call('POST', EVICT, groups(['conversation_groups']));
    w.status(204);
  }),
  eviction('Batching evicts all records', async (w) => {
    await manySoftDeleted(w, 25, 100);
    await w.call('POST', EVICT, groups(['conversation_groups']));
    w.status(204);
    assert.equal(await softDeletedLeft(w), 0, 'soft-deleted conversations left');
  }),
  eviction('Cascade deletes memberships and ownership transfers', async (w) => {
    const group = await haveConversation(w, 'Full Cascade');
    await w.sharedByOwner('bob', 'reader');
    await w.ownerOffersTransfer('bob');
    assert.equal(
      await count(w, 'SELECT count(*) AS n FROM conversation_ownership_transfers WHERE group_id = $1', [group]),
      1,
    );
    await softDeletedDaysAgo(w, 100);
    await w.call('POST', EVICT, groups(['conversation_groups']));
    w.status(204);
    assert.equal(await membershipRows(w, group), 0, 'memberships of the evicted group');
    assert.equal(
      await count(w, 'SELECT count(*) AS n FROM conversation_ownership_transfers WHERE group_id = $1', [group]),
      0,
      'ownership transfers of the evicted group',
    );
  }),
  eviction('Vector store task contains correct group ID', async (w) => {
    const group = await haveConversation(w, 'Vector Cleanup');
    await softDeletedDaysAgo(w, 100);
    await w.call('POST', EVICT, groups(['conversation_groups']));
    w.status(204);
    assert.equal(await groupRows(w, group), 0, 'the group is gone');
    await vectorsGone(w, group, 1);
  }),
];
