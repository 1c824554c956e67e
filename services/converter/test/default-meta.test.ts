import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Actor, GroupChatInput } from '@memstream/schemas';
import { findDefaultConversationMeta } from '@memstream/store';
import { handleGroupChatBatch } from '../src/handlers/group-chat-input.js';
import { handlerContext as ctx, handlerDeps } from './handler-harness.js';

async function converter(t: TestContext) {
  const { deps, outcomeOf } = await handlerDeps(t);
  const batch = handleGroupChatBatch(deps);
  const handle = async (events: GroupChatInput[]) => void (await (await batch(events, ctx)).pending);
  return { store: deps.store, handle, outcomeOf };
}

const envelope = (actor?: Actor) => ({
  id: randomUUID(),
  occurred_at: new Date().toISOString(),
  ...(actor ? { actor } : {}),
});
const defaultMeta = (actor?: Actor): GroupChatInput => ({
  ...envelope(actor),
  type: 'group_chat.conversation_meta.upserted',
  data: {
    scene: 'assistant',
    scene_desc: 'default',
    name: 'Defaults',
    description: 'for groups without their own',
    group_id: null,
    created_at: '2025-01-15T08:00:00Z',
    default_timezone: 'Asia/Shanghai',
    user_details: { u1: { full_name: 'Uma One', role: 'user' }, bot: { full_name: 'Bot', role: 'assistant' } },
  },
});
const message = (group: string, id: string, sender: string): GroupChatInput => ({
  ...envelope(),
  type: 'group_chat.message.received',
  data: { group_id: group, message_id: id, create_time: '2025-01-15T10:00:00Z', sender, content: `line ${id}` },
});

async function storedMessages(
  t: { query: (sql: string, params: unknown[]) => Promise<{ rows: unknown[] }> },
  group: string,
) {
  const { rows } = await t.query(
    'SELECT message_id, sender_name, role, metadata FROM messages WHERE conversation_id = $1 ORDER BY seq',
    [group],
  );
  return rows;
}

test("a person's default config, even straight from Kafka, is refused; an agent's is stored", async (t) => {
  const { store, handle, outcomeOf } = await converter(t);
  const byPerson = defaultMeta({ kind: 'user', id: 'rita' });
  await handle([byPerson]);
  const refused = await outcomeOf(byPerson);
  assert.deepEqual([refused?.status, refused?.error_code, refused?.group_id], ['failed', 'FORBIDDEN', null]);
  assert.equal(await findDefaultConversationMeta(store), undefined);

  const byAgent = defaultMeta();
  await handle([byAgent]);
  assert.deepEqual([(await outcomeOf(byAgent))?.status, (await outcomeOf(byAgent))?.group_id], ['stored', null]);
  assert.equal((await findDefaultConversationMeta(store))?.name, 'Defaults');
});

test("a group without metadata takes the default's participants, scene and zone, from the message after it on", async (t) => {
  const { store, handle } = await converter(t);
  await handle([message('bare', 'before', 'bot')]);
  await handle([defaultMeta(), message('bare', 'after', 'bot'), message('bare', 'person', 'u1')]);
  await handle([
    {
      ...envelope(),
      type: 'group_chat.conversation_meta.upserted',
      data: {
        scene: 'group_chat',
        scene_desc: 'own',
        name: 'Own',
        description: 'd',
        group_id: 'own',
        created_at: '2025-01-15T08:00:00Z',
        default_timezone: 'UTC',
        user_details: {},
      },
    },
    message('own', 'm', 'bot'),
  ]);
  assert.deepEqual(await storedMessages(store, 'bare'), [
    { message_id: 'before', sender_name: 'bot', role: 'user', metadata: {} },
    {
      message_id: 'after',
      sender_name: 'Bot',
      role: 'assistant',
      metadata: { scene: 'assistant', timezone: 'Asia/Shanghai' },
    },
    {
      message_id: 'person',
      sender_name: 'Uma One',
      role: 'user',
      metadata: { scene: 'assistant', timezone: 'Asia/Shanghai' },
    },
  ]);
  assert.deepEqual(await storedMessages(store, 'own'), [
    {
      message_id: 'm',
      sender_name: 'bot',
      role: 'user',
      metadata: { group_name: 'Own', scene: 'group_chat', timezone: 'UTC' },
    },
  ]);
});
