import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Actor, GroupChatInput } from '@memstream/schemas';
import { listMessages, setMembership } from '@memstream/store';
import { handleGroupChatBatch } from '../src/handlers/group-chat-input.js';
import { handlerContext as ctx, handlerDeps } from './handler-harness.js';

async function converter(t: TestContext) {
  const { deps, outcomeOf } = await handlerDeps(t);
  const batch = handleGroupChatBatch(deps);
  const handle = async (events: GroupChatInput[]) => void (await (await batch(events, ctx)).pending);
  const ids = async (group: string) =>
    (await listMessages(deps.store, { conversationId: group, limit: 100, offset: 0, order: 'oldest-first' })).items.map(
      (m) => m.message_id,
    );
  return { store: deps.store, handle, outcomeOf, ids };
}

const envelope = (actor?: Actor) => ({
  id: randomUUID(),
  occurred_at: new Date().toISOString(),
  ...(actor ? { actor } : {}),
});
const message = (group: string, id: string, sender = 'u1'): GroupChatInput => ({
  ...envelope(),
  type: 'group_chat.message.received',
  data: { group_id: group, message_id: id, create_time: '2025-01-15T10:00:00Z', sender, content: `line ${id}` },
});
const deletion = (
  data: { group_id?: string; message_id?: string; user_id?: string },
  actor?: Actor,
): GroupChatInput => ({ ...envelope(actor), type: 'group_chat.memories.deleted', data });

test('a deletion forgets what was written before it in the same flush, once: redelivered, it keeps its first answer', async (t) => {
  const { handle, outcomeOf, ids } = await converter(t);
  const forget = deletion({ group_id: 'g1', user_id: 'u2' });
  await handle([message('g1', 'm1'), message('g1', 'm2', 'u2'), message('g1', 'm3', 'u2'), forget]);
  assert.deepEqual(await ids('g1'), ['m1']);
  const first = await outcomeOf(forget);
  assert.equal(first?.status, 'stored');
  assert.deepEqual(first?.result, {
    deleted_messages: 2,
    deleted_memories: 0,
    episodes_reextracting: 0,
    episodes_deleted: 0,
  });

  await handle([forget]); // Kafka redelivers it: nothing is left to delete, and the answer stands
  assert.deepEqual((await outcomeOf(forget))?.result, first?.result);
  const nothing = deletion({ group_id: 'g1', user_id: 'u2' });
  await handle([nothing]);
  assert.deepEqual(
    [(await outcomeOf(nothing))?.status, (await outcomeOf(nothing))?.error_code],
    ['failed', 'RESOURCE_NOT_FOUND'],
  );
});

test('a person forgets only where they manage: a group named at a lower level is refused, other groups are left out', async (t) => {
  const { store, handle, outcomeOf, ids } = await converter(t);
  await handle([message('ga', 'a1', 'u9'), message('gb', 'b1', 'u9')]);
  await setMembership(store, 'ga', 'mia', 'manager');
  await setMembership(store, 'gb', 'mia', 'reader');

  const named = deletion({ group_id: 'gb', user_id: 'u9' }, { kind: 'user', id: 'mia' });
  await handle([named]);
  assert.deepEqual([(await outcomeOf(named))?.status, (await outcomeOf(named))?.error_code], ['failed', 'FORBIDDEN']);

  const across = deletion({ user_id: 'u9' }, { kind: 'user', id: 'mia' });
  await handle([across]);
  assert.deepEqual((await outcomeOf(across))?.result, {
    deleted_messages: 1,
    deleted_memories: 0,
    episodes_reextracting: 0,
    episodes_deleted: 0,
  });
  assert.deepEqual([await ids('ga'), await ids('gb')], [[], ['b1']], 'only the managed group lost its message');
});
