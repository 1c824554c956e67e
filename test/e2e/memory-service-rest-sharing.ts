import type { Scenario } from './memory-service-rest-conversations.js';
import { messages as featureOf } from './memory-service-rest-messages.js';
import type { World } from './memory-service-rest-world.js';

const ZERO = '00000000-0000-0000-0000-000000000000';
const text = (t: string) => [{ type: 'text', text: t }];

// ---- forking ----

const fork = featureOf('Conversation Forking REST API', async (w) => {
  w.asUser('alice');
  await w.haveConversation('Base Conversation');
  for (const t of ['First message', 'Second message', 'Third message']) await w.hasMessage(t);
});

const listMessages = (w: World) => w.call('GET', `${w.conv()}/messages`);
const forkAt = (w: World, messageId: string, body: unknown = {}, conversationId = w.conversationId) =>
  w.call('POST', `${w.conv(conversationId)}/messages/${encodeURIComponent(messageId)}/fork`, body);
/** "I share ... with request": the January 2026 service shares at POST /forks. */
const share = (w: World, body: { userId: string; accessLevel: string }, conversationId = w.conversationId) =>
  w.call('POST', `${w.conv(conversationId)}/forks`, body);

export const FORKING: readonly Scenario[] = [
  fork('Fork a conversation at a message', async (w) => {
    await listMessages(w);
    const second = w.set('secondMessageId', 'data[1].id');
    const first = w.set('firstMessageId', 'data[0].id');
    await forkAt(w, second, { title: 'Forked Conversation' });
    w.status(201);
    w.bodyIs((b) => ({
      id: b.id,
      title: 'Forked Conversation',
      ownerUserId: 'alice',
      createdAt: b.createdAt,
      updatedAt: b.updatedAt,
      accessLevel: 'owner',
      forkedAtMessageId: first,
      forkedAtConversationId: w.conversationId,
    }));
  }),
  fork('Fork a conversation without title', async (w) => {
    await listMessages(w);
    await forkAt(w, w.set('firstMessageId', 'data[0].id'), {});
    w.status(201);
    w.contains('id');
    const forked = w.set('forkedConversationId', 'id');
    await w.call('GET', w.conv(forked));
    w.status(200);
    w.contains('forkedAtConversationId');
  }),
  fork('List forks for a conversation', async (w) => {
    await listMessages(w);
    const second = w.set('secondMessageId', 'data[1].id');
    const first = w.set('firstMessageId', 'data[0].id');
    await forkAt(w, second, { title: 'Fork 1' });
    await forkAt(w, second, { title: 'Fork 2' });
    await w.call('GET', `${w.conv()}/forks`);
    w.status(200);
    w.atLeast(3);
    w.contains('forkedAtMessageId');
    w.fieldIs('data[0].conversationId', w.conversationId);
    w.fieldIs('data[0].forkedAtMessageId', null);
    for (const i of [1, 2]) {
      w.fieldIs(`data[${i}].forkedAtMessageId`, first);
      w.fieldIs(`data[${i}].forkedAtConversationId`, w.conversationId);
    }
  }),
  fork('Fork non-existent conversation', async (w) => {
    await forkAt(w, '00000000-0000-0000-0000-000000000001', { title: 'Fork' }, ZERO);
    w.status(404);
    w.errorCode('not_found');
  }),
  fork('Fork at non-existent message', async (w) => {
    await forkAt(w, ZERO, { title: 'Fork' });
    w.status(404);
    w.errorCode('not_found');
  }),
  fork('Fork conversation without access', async (w) => {
    await w.conversationOwnedBy('bob');
    await forkAt(w, ZERO, { title: 'Fork' });
    w.status(403);
    w.errorCode('forbidden');
  }),
  fork('List forks for non-existent conversation', async (w) => {
    await w.call('GET', `${w.conv(ZERO)}/forks`);
    w.status(404);
    w.errorCode('not_found');
  }),
  fork('List forks without access', async (w) => {
    await w.conversationOwnedBy('bob');
    await w.call('GET', `${w.conv()}/forks`);
    w.status(403);
    w.errorCode('forbidden');
  }),
  fork('Forked conversation shares membership with root', async (w) => {
    await share(w, { userId: 'bob', accessLevel: 'reader' });
    await listMessages(w);
    await forkAt(w, w.set('firstMessageId', 'data[0].id'), { title: 'Forked Conversation' });
    const forked = w.set('forkConversationId', 'id');
    w.asUser('bob');
    await w.call('GET', w.conv(forked));
    w.status(200);
  }),
];

// ---- sharing ----

const sharing = featureOf('Conversation Sharing REST API', async (w) => {
  w.asUser('alice');
  await w.haveConversation('Shared Conversation');
});

/** A membership as the service answers it: these fields and no others. */
const membership = (w: World, userId: string, accessLevel: string) =>
  w.bodyIs((b) => ({ conversationId: w.conversationId, userId, accessLevel, createdAt: b.createdAt }));

const hasMember = (w: World, userId: string, level: string) => {
  const found = (w.last.body?.data ?? []).some(
    (m: { userId: string; accessLevel: string }) => m.userId === userId && m.accessLevel.toLowerCase() === level,
  );
  if (!found) throw new Error(`no membership of ${userId} as ${level}: ${w.last.text}`);
};

const transfer = (w: World, newOwnerUserId: string, conversationId = w.conversationId) =>
  w.call('POST', `${w.conv(conversationId)}/transfer-ownership`, { newOwnerUserId });

/** The sharing scenarios that start with a conversation of bob's and charlie as a member of it. */
const bobsWithCharlie = async (w: World, level: string) => {
  await w.conversationOwnedBy('bob');
  w.asUser('charlie');
  await w.sharedByOwner('charlie', level);
};

/** The root with bob as writer, one message and a fork (the last two sharing scenarios). */
const rootAndFork = async (w: World, shareFirst: boolean) => {
  await w.haveConversation('Root Conversation');
  w.vars.set('rootConversationId', w.conversationId);
  if (shareFirst) await share(w, { userId: 'bob', accessLevel: 'writer' });
  await w.call('POST', `${w.conv()}/messages`, { content: text('First message') });
  await forkAt(w, w.set('messageId', 'id'), {});
  return w.set('forkConversationId', 'id');
};

export const SHARING: readonly Scenario[] = [
  ...(
    [
      ['Share a conversation with a user', 'bob', 'writer'],
      ['Share a conversation with reader access', 'charlie', 'reader'],
      ['Share a conversation with manager access', 'dave', 'manager'],
    ] as const
  ).map(([name, userId, level]) =>
    sharing(name, async (w) => {
      await share(w, { userId, accessLevel: level });
      w.status(201);
      membership(w, userId, level);
    }),
  ),
  sharing('List conversation memberships', async (w) => {
    await share(w, { userId: 'bob', accessLevel: 'writer' });
    await w.call('GET', `${w.conv()}/memberships`);
    w.status(200);
    w.atLeast(2);
    w.bodyIs((b) => ({
      data: [0, 1].map((i) => ({
        conversationId: w.conversationId,
        userId: b.data[i].userId,
        accessLevel: b.data[i].accessLevel,
        createdAt: b.data[i].createdAt,
      })),
    }));
    hasMember(w, 'alice', 'owner');
    hasMember(w, 'bob', 'writer');
  }),
  sharing('Update membership access level', async (w) => {
    await share(w, { userId: 'bob', accessLevel: 'reader' });
    await w.call('PATCH', `${w.conv()}/memberships/bob`, { accessLevel: 'writer' });
    w.status(200);
    membership(w, 'bob', 'writer');
  }),
  sharing('Delete a membership', async (w) => {
    await share(w, { userId: 'bob', accessLevel: 'writer' });
    await w.call('DELETE', `${w.conv()}/memberships/bob`);
    w.status(204);
    await w.call('GET', `${w.conv()}/memberships`);
    w.count(1);
    if ((w.last.body.data as Array<{ userId: string }>).some((m) => m.userId === 'bob'))
      throw new Error(`bob is still a member: ${w.last.text}`);
  }),
  sharing('Share non-existent conversation', async (w) => {
    await share(w, { userId: 'bob', accessLevel: 'writer' }, ZERO);
    w.status(404);
    w.errorCode('not_found');
  }),
  sharing('Share conversation without access', async (w) => {
    await w.conversationOwnedBy('bob');
    await share(w, { userId: 'charlie', accessLevel: 'writer' });
    w.status(403);
    w.errorCode('forbidden');
  }),
  sharing('List memberships without manager access', async (w) => {
    await bobsWithCharlie(w, 'reader');
    await w.call('GET', `${w.conv()}/memberships`);
    w.status(403);
    w.errorCode('forbidden');
  }),
  sharing('Update membership without manager access', async (w) => {
    await bobsWithCharlie(w, 'writer');
    await w.call('PATCH', `${w.conv()}/memberships/dave`, { accessLevel: 'reader' });
    w.status(403);
    w.errorCode('forbidden');
  }),
  sharing('Delete membership without manager access', async (w) => {
    await bobsWithCharlie(w, 'writer');
    await w.call('DELETE', `${w.conv()}/memberships/dave`);
    w.status(403);
    w.errorCode('forbidden');
  }),
  sharing('Transfer conversation ownership', async (w) => {
    await w.haveConversation('Ownership Transfer Test');
    await transfer(w, 'bob');
    w.status(202);
  }),
  sharing('Transfer ownership of non-existent conversation', async (w) => {
    await transfer(w, 'bob', ZERO);
    w.status(404);
    w.errorCode('not_found');
  }),
  sharing('Transfer ownership without access', async (w) => {
    await w.conversationOwnedBy('bob');
    await transfer(w, 'charlie');
    w.status(403);
    w.errorCode('forbidden');
  }),
  sharing('Membership response contains conversationId instead of conversationGroupId', async (w) => {
    await share(w, { userId: 'bob', accessLevel: 'writer' });
    w.status(201);
    w.contains('conversationId');
    w.lacks('conversationGroupId');
    w.fieldIs('conversationId', w.conversationId);
  }),
  sharing('Sharing via a fork applies to all conversations in the fork tree', async (w) => {
    const forked = await rootAndFork(w, false);
    await share(w, { userId: 'bob', accessLevel: 'reader' }, forked);
    w.asUser('bob');
    await w.call('GET', w.conv(w.get('rootConversationId')));
    w.status(200);
  }),
  sharing('Listing memberships from a fork returns the same memberships as the root', async (w) => {
    const forked = await rootAndFork(w, true);
    await w.call('GET', `${w.conv(forked)}/memberships`);
    w.status(200);
    w.atLeast(2);
    hasMember(w, 'alice', 'owner');
    hasMember(w, 'bob', 'writer');
  }),
];
