import assert from 'node:assert/strict';
import { useCredentials } from '../../harness/credentials.js';
import { memoryServiceCall } from '../helpers/memory-service-client.js';

type Conversation = {
  id: string;
  ownerUserId: string | null;
  accessLevel: string;
  forkedAtMessageId: string | null;
  forkedAtConversationId: string | null;
  title: string | null;
};
type Message = { id: string; conversationId: string; userId: string | null; channel: string; content: unknown[] };
type Page<T> = { data: T[]; nextCursor: string | null };

export interface People {
  readonly alice: Record<string, string>;
  readonly bob: Record<string, string>;
  readonly carol: Record<string, string>;
  readonly agent: Record<string, string>;
}

const text = (t: string) => [{ type: 'text', text: t }];

/**
 * The memory-service family as its generated clients use it (the code layout, every call and
 * answer checked against the January 2026 OpenAPI file): create → append → fork → share → read,
 * then the rules a member's level sets, an ownership transfer, and deletion of the fork tree.
 */
export async function checkConversationScenario(base: string, people: People): Promise<void> {
  const as = (who: Record<string, string>) => useCredentials(base, who);

  as(people.alice);
  const created = await memoryServiceCall<Conversation>(base, 'createConversation', {
    body: { title: 'Trip', metadata: { source: 'test' } },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = created.body.id;
  // as the service answers: no group id, no metadata, and what has no value left out
  assert.deepEqual(
    [created.body.ownerUserId, created.body.accessLevel, Object.keys(created.body).sort()],
    ['alice', 'owner', ['accessLevel', 'createdAt', 'id', 'ownerUserId', 'title', 'updatedAt']],
  );

  const m1 = await memoryServiceCall<Message>(base, 'appendConversationMessage', {
    params: { conversationId: id },
    body: { content: text('plan a trip to Lisbon') },
  });
  assert.equal(m1.status, 201, JSON.stringify(m1.body));
  assert.deepEqual(
    [m1.body.userId, m1.body.channel, m1.body.content],
    ['alice', 'history', text('plan a trip to Lisbon')],
  );
  as(people.agent);
  const m2 = await memoryServiceCall<Message>(base, 'appendConversationMessage', {
    params: { conversationId: id },
    body: { userId: 'alice', content: text('Lisbon in May is mild') },
  });
  assert.equal(m2.status, 201);
  as(people.alice);
  const m3 = await memoryServiceCall<Message>(base, 'appendConversationMessage', {
    params: { conversationId: id },
    body: { content: text('what about Porto?') },
  });
  const history = await memoryServiceCall<Page<Message>>(base, 'listConversationMessages', {
    params: { conversationId: id },
  });
  assert.deepEqual(
    history.body.data.map((m) => m.id),
    [m1.body.id, m2.body.id, m3.body.id],
  );
  const paged = await memoryServiceCall<Page<Message>>(base, 'listConversationMessages', {
    params: { conversationId: id },
    query: { limit: '2' },
  });
  assert.deepEqual([paged.body.data.length, paged.body.nextCursor], [2, m2.body.id]);
  const rest = await memoryServiceCall<Page<Message>>(base, 'listConversationMessages', {
    params: { conversationId: id },
    query: { after: m2.body.id },
  });
  assert.deepEqual(
    rest.body.data.map((m) => m.id),
    [m3.body.id],
  );

  // A fork at the third message shows the two before it, then its own; the original is unchanged.
  const fork = await memoryServiceCall<Conversation>(base, 'forkConversationAtMessage', {
    params: { conversationId: id, messageId: m3.body.id },
    body: { title: 'Porto instead' },
  });
  assert.equal(fork.status, 201, JSON.stringify(fork.body));
  assert.deepEqual(
    [fork.body.forkedAtConversationId, fork.body.forkedAtMessageId, fork.body.title],
    [id, m2.body.id, 'Porto instead'],
  );
  const notAUserMessage = await memoryServiceCall(base, 'forkConversationAtMessage', {
    params: { conversationId: id, messageId: m2.body.id },
    body: {},
  });
  assert.equal(notAUserMessage.status, 400);
  const m4 = await memoryServiceCall<Message>(base, 'appendConversationMessage', {
    params: { conversationId: fork.body.id },
    body: { content: text('Porto in June then') },
  });
  assert.equal(m4.status, 201);
  const forkView = await memoryServiceCall<Page<Message>>(base, 'listConversationMessages', {
    params: { conversationId: fork.body.id },
  });
  assert.deepEqual(
    forkView.body.data.map((m) => m.id),
    [m1.body.id, m2.body.id, m4.body.id],
  );
  assert.equal(
    (await memoryServiceCall<Page<Message>>(base, 'listConversationMessages', { params: { conversationId: id } })).body
      .data.length,
    3,
  );
  const forks = await memoryServiceCall<{ data: Array<{ conversationId: string; forkedAtMessageId: string }> }>(
    base,
    'listConversationForks',
    { params: { conversationId: id } },
  );
  assert.deepEqual(
    forks.body.data.map((f) => [f.conversationId, f.forkedAtMessageId]),
    [
      [id, undefined],
      [fork.body.id, m2.body.id],
    ],
    'the whole tree, root first',
  );

  // Sharing: a reader reads the whole tree and writes nothing; a writer writes.
  const shared = await memoryServiceCall<{ userId: string; accessLevel: string }>(base, 'shareConversation', {
    params: { conversationId: id },
    body: { userId: 'bob', accessLevel: 'reader' },
  });
  assert.equal(shared.status, 201, JSON.stringify(shared.body));
  assert.equal(
    (
      await memoryServiceCall(base, 'shareConversation', {
        params: { conversationId: id },
        body: { userId: 'bob', accessLevel: 'reader' },
      })
    ).status,
    409,
  );
  assert.equal(
    (
      await memoryServiceCall(base, 'shareConversation', {
        params: { conversationId: id },
        body: { userId: 'carol', accessLevel: 'owner' },
      })
    ).status,
    400,
  );
  as(people.bob);
  const bobReads = await memoryServiceCall<Conversation>(base, 'getConversation', {
    params: { conversationId: fork.body.id },
  });
  assert.deepEqual([bobReads.status, bobReads.body.accessLevel], [200, 'reader']);
  assert.equal(
    (
      await memoryServiceCall(base, 'appendConversationMessage', {
        params: { conversationId: id },
        body: { content: text('bob') },
      })
    ).status,
    403,
  );
  assert.equal(
    (
      await memoryServiceCall(base, 'shareConversation', {
        params: { conversationId: id },
        body: { userId: 'carol', accessLevel: 'reader' },
      })
    ).status,
    403,
  );
  const bobsList = await memoryServiceCall<Page<Conversation>>(base, 'listConversations');
  assert.deepEqual(new Set(bobsList.body.data.map((c) => c.id)), new Set([id, fork.body.id]));
  const roots = await memoryServiceCall<Page<Conversation>>(base, 'listConversations', { query: { mode: 'roots' } });
  assert.deepEqual(
    roots.body.data.map((c) => c.id),
    [id],
  );
  as(people.alice);
  const promoted = await memoryServiceCall<{ accessLevel: string }>(base, 'updateConversationMembership', {
    params: { conversationId: id, userId: 'bob' },
    body: { accessLevel: 'manager' },
  });
  assert.deepEqual([promoted.status, promoted.body.accessLevel], [200, 'manager']);
  as(people.bob);
  assert.equal(
    (
      await memoryServiceCall(base, 'appendConversationMessage', {
        params: { conversationId: id },
        body: { content: text('bob writes') },
      })
    ).status,
    201,
  );
  // A manager shares up to manager, never past it, and never touches the owner.
  assert.equal(
    (
      await memoryServiceCall(base, 'shareConversation', {
        params: { conversationId: id },
        body: { userId: 'carol', accessLevel: 'writer' },
      })
    ).status,
    201,
  );
  assert.equal(
    (
      await memoryServiceCall(base, 'updateConversationMembership', {
        params: { conversationId: id, userId: 'alice' },
        body: { accessLevel: 'reader' },
      })
    ).status,
    403,
  );
  assert.equal(
    (await memoryServiceCall(base, 'deleteConversationMembership', { params: { conversationId: id, userId: 'alice' } }))
      .status,
    403,
  );
  assert.equal(
    (
      await memoryServiceCall(base, 'transferConversationOwnership', {
        params: { conversationId: id },
        body: { newOwnerUserId: 'bob' },
      })
    ).status,
    403,
  );
  const members = await memoryServiceCall<{ data: Array<{ userId: string; accessLevel: string }> }>(
    base,
    'listConversationMemberships',
    { params: { conversationId: id } },
  );
  assert.deepEqual(
    members.body.data.map((m) => [m.userId, m.accessLevel]),
    [
      ['alice', 'owner'],
      ['bob', 'manager'],
      ['carol', 'writer'],
    ],
  );
  as(people.carol);
  assert.equal(
    (await memoryServiceCall(base, 'deleteConversationMembership', { params: { conversationId: id, userId: 'carol' } }))
      .status,
    204,
    'a member may leave',
  );
  // no longer a member: 403 with a message, as the memory-service answers a stranger
  const gone = await memoryServiceCall<{ error: string; code: string; details: { message: string } }>(
    base,
    'getConversation',
    {
      params: { conversationId: id },
    },
  );
  assert.deepEqual([gone.status, gone.body.code, typeof gone.body.details.message], [403, 'forbidden', 'string']);

  // Ownership moves only when its recipient accepts.
  as(people.alice);
  const offered = await memoryServiceCall<{ status: string; toUserId: string }>(base, 'transferConversationOwnership', {
    params: { conversationId: id },
    body: { newOwnerUserId: 'bob' },
  });
  assert.deepEqual([offered.status, offered.body.status, offered.body.toUserId], [202, 'pending', 'bob']);
  assert.equal(
    (await memoryServiceCall<Conversation>(base, 'getConversation', { params: { conversationId: id } })).body
      .ownerUserId,
    'alice',
  );
  as(people.bob);
  const accepted = await fetchJson(base, 'POST', `/v1/conversations/${id}/transfer-ownership/accept`);
  assert.deepEqual([accepted.status, accepted.body['status']], [200, 'accepted']);
  const afterTransfer = await memoryServiceCall<Conversation>(base, 'getConversation', {
    params: { conversationId: id },
  });
  assert.deepEqual([afterTransfer.body.ownerUserId, afterTransfer.body.accessLevel], ['bob', 'owner']);
  as(people.alice);
  assert.equal(
    (await memoryServiceCall<Conversation>(base, 'getConversation', { params: { conversationId: id } })).body
      .accessLevel,
    'manager',
  );

  // No credentials: 401 in the family's shape.
  as({});
  const anonymous = await memoryServiceCall<{ code: string }>(base, 'listConversations');
  assert.deepEqual([anonymous.status, anonymous.body.code], [401, 'unauthorized']);

  // Deleting removes the whole tree, for everyone.
  as(people.alice);
  assert.equal((await memoryServiceCall(base, 'deleteConversation', { params: { conversationId: id } })).status, 204);
  as(people.bob);
  assert.equal(
    (await memoryServiceCall(base, 'getConversation', { params: { conversationId: fork.body.id } })).status,
    404,
  );
  assert.equal((await memoryServiceCall<Page<Conversation>>(base, 'listConversations')).body.data.length, 0);
  useCredentials(base, {});
}

async function fetchJson(
  base: string,
  method: string,
  path: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const { credentialsFor } = await import('../../harness/credentials.js');
  const res = await fetch(`${base}${path}`, { method, headers: credentialsFor(base) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

type DocMessage = { id: string; role: string; visibility: string; content: string; sequence: number };

/**
 * The design document's layout: people write text under /v1/user, agents write in bulk under
 * /v1/agent with visibilities; the people's view leaves agent-only messages out, a fork may start
 * with a new message, and what is written reaches memory formation like any other message.
 */
export async function checkDocumentLayout(base: string, people: People): Promise<void> {
  const call = async <T>(who: Record<string, string>, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...who, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  };
  const created = await call<{ id: string; ownerUserId: string }>(people.alice, 'POST', '/v1/user/conversations', {
    title: 'Plans',
  });
  assert.deepEqual([created.status, created.body.ownerUserId], [201, 'alice']);
  const id = created.body.id;
  const hello = await call<DocMessage>(people.alice, 'POST', `/v1/user/conversations/${id}/messages`, {
    content: 'hello, I need a plan for the garden',
  });
  assert.equal(hello.status, 201, JSON.stringify(hello.body));
  assert.deepEqual(
    [hello.body.role, hello.body.visibility, hello.body.content, hello.body.sequence],
    ['user', 'user', 'hello, I need a plan for the garden', 0],
  );
  const bulk = await call<{ data: DocMessage[] }>(people.agent, 'POST', `/v1/agent/conversations/${id}/messages`, {
    messages: [
      { role: 'assistant', content: 'Start with tomatoes', visibility: 'user' },
      { role: 'system', content: 'internal: the user likes vegetables', visibility: 'agent' },
    ],
  });
  assert.equal(bulk.status, 201, JSON.stringify(bulk.body));
  assert.deepEqual(
    bulk.body.data.map((m) => m.sequence),
    [1, 2],
  );
  assert.equal(
    (
      await call(people.alice, 'POST', `/v1/agent/conversations/${id}/messages`, {
        messages: [{ role: 'assistant', content: 'x' }],
      })
    ).status,
    403,
    'the agent API needs a key',
  );

  const userView = await call<{ data: DocMessage[] }>(people.alice, 'GET', `/v1/user/conversations/${id}/messages`);
  assert.deepEqual(
    userView.body.data.map((m) => m.content),
    ['hello, I need a plan for the garden', 'Start with tomatoes'],
    'agent-only messages are not in the user view',
  );
  const agentView = await call<{ data: unknown[] }>(people.agent, 'GET', `/v1/conversations/${id}/messages`);
  assert.equal(agentView.body.data.length, 3, 'an agent sees them');

  const fork = await call<{ id: string; forkedAtMessageId: string | null; forkedAtConversationId: string }>(
    people.alice,
    'POST',
    `/v1/user/conversations/${id}/messages/${hello.body.id}/fork`,
    {
      title: 'Flowers instead',
      newMessage: { content: 'hello, I need a plan for flowers' },
    },
  );
  assert.equal(fork.status, 201, JSON.stringify(fork.body));
  assert.deepEqual(
    ['forkedAtMessageId' in fork.body, fork.body.forkedAtConversationId],
    [false, id],
    'a fork at the first message inherits nothing',
  );
  const forkView = await call<{ data: DocMessage[] }>(
    people.alice,
    'GET',
    `/v1/user/conversations/${fork.body.id}/messages`,
  );
  assert.deepEqual(
    forkView.body.data.map((m) => m.content),
    ['hello, I need a plan for flowers'],
  );
  const forks = await call<{ data: Array<{ forkId: string; isCurrentFork: boolean }> }>(
    people.alice,
    'GET',
    `/v1/user/conversations/${fork.body.id}/forks`,
  );
  assert.deepEqual(
    forks.body.data.map((f) => [f.forkId, f.isCurrentFork]),
    [
      [id, false],
      [fork.body.id, true],
    ],
  );

  // Memory channel: an agent's own, by epoch; people cannot read it.
  const memory = await call(people.agent, 'POST', `/v1/conversations/${id}/messages`, {
    channel: 'memory',
    epoch: 1,
    content: [{ type: 'text', text: 'likes vegetables' }],
  });
  assert.equal(memory.status, 201);
  const memories = await call<{ data: Array<{ epoch: number }> }>(
    people.agent,
    'GET',
    `/v1/conversations/${id}/messages?channel=memory`,
  );
  assert.deepEqual(
    memories.body.data.map((m) => m.epoch),
    [1],
  );
  assert.equal((await call(people.alice, 'GET', `/v1/conversations/${id}/messages?channel=memory`)).status, 403);

  // The messages are the platform's like any other: the EverMemOS read sees them too, under the
  // same rule: a person the two history messages, the agent all four (its memory included).
  const stored = await call<{ result: { total_count: number } }>(
    people.alice,
    'GET',
    `/api/v1/memories?group_id=${id}`,
  );
  assert.equal(stored.body.result.total_count, 2);
  const storedForAgent = await call<{ result: { total_count: number } }>(
    people.agent,
    'GET',
    `/api/v1/memories?group_id=${id}`,
  );
  assert.equal(storedForAgent.body.result.total_count, 4);
}
