import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Actor, GroupChatInput } from '@memstream/schemas';
import { listEpisodesByIds, setMembership } from '@memstream/store';
import { handleGroupChatBatch } from '../src/handlers/group-chat-input.js';
import { handlerContext as ctx, handlerDeps } from './handler-harness.js';

async function converter(t: TestContext) {
  const { deps, outcomeOf } = await handlerDeps(t); // episodes of at most three messages
  const batch = handleGroupChatBatch(deps);
  const handle = async (events: GroupChatInput[]) => void (await (await batch(events, ctx)).pending);
  return { store: deps.store, handle, outcomeOf };
}

const envelope = (actor?: Actor) => ({
  id: randomUUID(),
  occurred_at: new Date().toISOString(),
  ...(actor ? { actor } : {}),
});
const message = (group: string, id: string): GroupChatInput => ({
  ...envelope(),
  type: 'group_chat.message.received',
  data: { group_id: group, message_id: id, create_time: '2025-01-15T10:00:00Z', sender: 'u1', content: `line ${id}` },
});
const flush = (group: string, actor?: Actor): GroupChatInput => ({
  ...envelope(actor),
  type: 'group_chat.memories.flush_requested',
  data: { group_id: group },
});

test('a flush closes what was written before it by the rules, the rest as one episode, and answers the same when redelivered', async (t) => {
  const { store, handle, outcomeOf } = await converter(t);
  const first = flush('g1');
  await handle([...['m0', 'm1', 'm2', 'm3', 'm4'].map((id) => message('g1', id)), first]);
  const ids = (await outcomeOf(first))?.result?.['episode_ids'] as number[];
  const episodes = await listEpisodesByIds(store, ids);
  assert.deepEqual(
    episodes.map((e) => [e.start_seq, e.end_seq, e.close_reason]),
    [
      [0, 2, 'message_cap'],
      [3, 4, 'flush'],
    ],
  );

  await handle([first]); // redelivered: the first answer stands, nothing closes twice
  assert.deepEqual((await outcomeOf(first))?.result?.['episode_ids'], ids);
  const again = flush('g1');
  await handle([again]);
  assert.deepEqual((await outcomeOf(again))?.result?.['episode_ids'], [], 'nothing was left open');
});

test('a flush of an unknown group, or by a person who only reads it, is refused', async (t) => {
  const { store, handle, outcomeOf } = await converter(t);
  await handle([message('g2', 'm0')]);
  await setMembership(store, 'g2', 'rita', 'reader');
  const unknown = flush('nobody');
  const reader = flush('g2', { kind: 'user', id: 'rita' });
  await handle([unknown, reader]);
  assert.deepEqual(
    [(await outcomeOf(unknown))?.error_code, (await outcomeOf(reader))?.error_code],
    ['RESOURCE_NOT_FOUND', 'FORBIDDEN'],
  );
  const { rows } = await store.query<{ n: string }>(`SELECT count(*) AS n FROM episodes WHERE conversation_id = 'g2'`);
  assert.equal(Number(rows[0]!.n), 0, 'nothing was closed');
});
