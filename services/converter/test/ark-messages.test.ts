import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import type { ArkMessagesReceived } from '@memstream/schemas';
import { handleArkBatch } from '../src/handlers/ark-messages.js';
import { handlerContext as ctx, handlerDeps } from './handler-harness.js';

test('an ARK message whose name is longer than an id is stored whole with its batch, the role as its sender', async (t) => {
  const { deps, outcomeOf } = await handlerDeps(t);
  // Random, so PostgreSQL cannot compress it below its index entry limit (about 2.7 KB).
  const name = randomBytes(6000).toString('base64');
  const batch: ArkMessagesReceived = {
    id: randomUUID(),
    type: 'ark.messages.received',
    occurred_at: new Date().toISOString(),
    data: {
      session_id: 's1',
      messages: [
        { role: 'user', content: 'first' },
        { role: 'tool', name, content: 'a result' },
        { role: 'assistant', name: 'planner', content: 'last' },
      ],
    },
  };

  await handleArkBatch(deps)([batch], ctx);

  assert.equal((await outcomeOf(batch))?.status, 'stored');
  const { rows } = await deps.store.query<{ sender_id: string; name: unknown }>(
    `SELECT sender_id, metadata->'message'->'name' AS name FROM messages WHERE conversation_id = 's1' ORDER BY seq`,
  );
  assert.deepEqual(rows, [
    { sender_id: 'user', name: null },
    { sender_id: 'tool', name },
    { sender_id: 'planner', name: 'planner' },
  ]);
});
