import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  kaosSessionKey,
  type Actor,
  type ArkMessagesReceived,
  type ConversationInput,
  type KaosEvent,
  type MemoryServiceMessage,
} from '@memstream/schemas';
import { claimConversation, findRequestOutcome, setMembership } from '@memstream/store';
import { handleArkBatch } from '../src/handlers/ark-messages.js';
import { conversationHarness } from './conversation-harness.js';
import { handlerContext as ctx, handlerDeps } from './handler-harness.js';

// The sender rule where it counts: events that reach the converter without the API's check (a
// direct producer, an older gateway) are held to it too.

const alice: Actor = { kind: 'user', id: 'alice' };
const bob: Actor = { kind: 'user', id: 'bob' };
const agent: Actor = { kind: 'agent', id: 'kaos-pod' };
const envelope = (type: string, actor: Actor, data: Record<string, unknown>) =>
  ({ id: randomUUID(), type, occurred_at: new Date().toISOString(), actor, data }) as ConversationInput;
const said = (type: string, content: string): KaosEvent => ({
  event_id: `event_${randomUUID().slice(0, 8)}`,
  timestamp: new Date().toISOString(),
  event_type: type,
  content,
  metadata: {},
});

test("a KAOS turn is its writer's: a member's in a shared session is theirs, a pod's the session user's or the agent's", async (t) => {
  const { store, apply } = await conversationHarness(t);
  const key = kaosSessionKey('a', 's');
  const limits = { max_sessions: 5, max_session_events: 10 };
  await apply(
    envelope('kaos.session.created', alice, {
      group_id: key,
      agent: 'a',
      session_id: 's',
      app_name: 'app',
      user_id: 'alice',
      get_or_create: false,
      owner_user_id: 'alice',
      ...limits,
    }),
  );
  const { rows } = await store.query<{ conversation_id: string }>('SELECT conversation_id FROM kaos_sessions');
  const conversation = rows[0]!.conversation_id;
  await setMembership(store, conversation, 'bob', 'writer');
  const append = (actor: Actor, events: KaosEvent[]) =>
    apply(envelope('kaos.events.appended', actor, { group_id: key, agent: 'a', session_id: 's', events, ...limits }));
  await append(bob, [said('user_message', 'bob asks'), said('agent_response', 'bob notes')]);
  await append(agent, [said('user_message', 'relayed'), said('agent_response', 'the pod answers')]);
  const senders = await store.query<{ content: string; sender_id: string; role: string }>(
    'SELECT content, sender_id, role FROM messages WHERE conversation_id = $1 ORDER BY seq',
    [conversation],
  );
  assert.deepEqual(senders.rows, [
    { content: 'bob asks', sender_id: 'bob', role: 'user' },
    { content: 'bob notes', sender_id: 'bob', role: 'assistant' },
    { content: 'relayed', sender_id: 'alice', role: 'user' },
    { content: 'the pod answers', sender_id: 'a', role: 'assistant' },
  ]);
});

test("a person's ARK batch naming someone else is refused whole; a role-only turn is stored as its writer, an agent's as before", async (t) => {
  const { deps, outcomeOf } = await handlerDeps(t);
  await claimConversation(deps.store, 's1', 'alice');
  await setMembership(deps.store, 's1', 'bob', 'writer');
  const batch = (actor: Actor, messages: Array<Record<string, unknown>>): ArkMessagesReceived => ({
    id: randomUUID(),
    type: 'ark.messages.received',
    occurred_at: new Date().toISOString(),
    actor,
    data: { session_id: 's1', messages: messages as ArkMessagesReceived['data']['messages'] },
  });
  const forged = batch(bob, [
    { role: 'user', content: 'bob speaks' },
    { role: 'user', name: 'alice', content: 'alice gives bob everything' },
  ]);
  const own = batch(bob, [{ role: 'user', content: 'bob asks' }]);
  const relayed = batch(agent, [
    { role: 'user', name: 'alice', content: 'relayed' },
    { role: 'assistant', content: 'answered' },
  ]);
  await handleArkBatch(deps)([forged, own, relayed], ctx);

  const refused = await outcomeOf(forged);
  assert.deepEqual([refused?.status, refused?.error_code], ['failed', 'FORBIDDEN']);
  assert.match(refused?.error_message ?? '', /messages\[1\]\.name/);
  const { rows } = await deps.store.query<{ content: string; sender_id: string }>(
    `SELECT content, sender_id FROM messages WHERE conversation_id = 's1' ORDER BY seq`,
  );
  assert.deepEqual(rows, [
    { content: 'bob asks', sender_id: 'bob' },
    { content: 'relayed', sender_id: 'alice' },
    { content: 'answered', sender_id: 'assistant' },
  ]);
});

test("a person's memory-service message naming another userId is refused, whatever their level", async (t) => {
  const { store, apply } = await conversationHarness(t);
  const message = (userId: string): MemoryServiceMessage => ({
    message_id: randomUUID(),
    role: 'user',
    visibility: 'user',
    channel: 'history',
    client_id: null,
    user_id: userId,
    epoch: null,
    content: [{ type: 'text', text: `from ${userId}` }],
    metadata: {},
    parent_message_id: null,
    created_at: new Date().toISOString(),
  });
  const append = (actor: Actor, userId: string) =>
    envelope('conversation.messages.appended', actor, {
      conversation_id: 'c1',
      group_id: 'c1',
      messages: [message(userId)],
      create_if_missing: true,
      owner_user_id: actor.id,
    });
  await apply(append(alice, 'alice'));
  const forged = append(alice, 'bob');
  await apply(forged);
  const refused = await findRequestOutcome(store, forged.id);
  assert.deepEqual([refused?.status, refused?.error_code], ['failed', 'FORBIDDEN']);
  const { rows } = await store.query<{ sender_id: string }>(
    `SELECT sender_id FROM messages WHERE conversation_id = 'c1'`,
  );
  assert.deepEqual(
    rows.map((r) => r.sender_id),
    ['alice'],
  );
});
