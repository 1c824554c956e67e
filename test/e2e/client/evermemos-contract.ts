import assert from 'node:assert/strict';
import { isAccepted, MemstreamError, type MemstreamClient } from '@memstream/client';
import { waitFor } from '../../helpers/infra.js';

/** Rejects with a MemstreamError of this family, status and code (the family's own code). */
export async function rejectsWith(
  call: Promise<unknown>,
  expected: { family: string; status: number; code: string },
): Promise<MemstreamError> {
  const err = await call.then(
    () => assert.fail(`expected ${expected.status} ${expected.code}, got an answer`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof MemstreamError, `expected a MemstreamError, got ${String(err)}`);
  assert.deepEqual({ family: err.family, status: err.status, code: err.code }, expected);
  return err;
}

/**
 * EverMemOS and the Memory Agent through the client: metadata, writes (a resent message_id is a
 * duplicate, so a retried write stores nothing twice), listing, both searches, stats, flush,
 * request status, delete, and the family's error codes.
 */
export async function checkEverMemOs(client: MemstreamClient, label: string): Promise<void> {
  const group = `client_${label}_group`;
  const meta = await client.evermemos.upsertConversationMeta({
    version: '1.0',
    scene: 'group_chat',
    scene_desc: 'planning',
    name: 'Offsite',
    description: 'Team offsite planning',
    group_id: group,
    created_at: '2025-01-15T09:00:00Z',
    default_timezone: 'UTC',
    user_details: { u1: { full_name: 'Ana', role: 'user' } },
  });
  assert.equal(isAccepted(meta) ? undefined : meta.result['group_id'], group);
  await client.evermemos.patchConversationMeta({ group_id: group, description: 'Offsite in Lisbon' });
  assert.equal((await client.evermemos.getConversationMeta(group)).result['description'], 'Offsite in Lisbon');

  const texts = ['Shall we hold the offsite in Lisbon?', 'Lisbon in May works for me.', 'Booking the venue on Friday.'];
  for (const [i, content] of texts.entries()) {
    const answer = await client.evermemos.write({
      group_id: group,
      message_id: `m${i}`,
      create_time: `2025-01-15T10:0${i}:00Z`,
      sender: 'u1',
      content,
    });
    assert.ok(!isAccepted(answer));
    assert.deepEqual([answer.result.message_id, answer.result.duplicate], [`m${i}`, false]);
  }
  const again = await client.evermemos.write({
    group_id: group,
    message_id: 'm0',
    create_time: '2025-01-15T10:00:00Z',
    sender: 'u1',
    content: texts[0]!,
  });
  assert.ok(!isAccepted(again) && again.result.duplicate, 'a resent message_id is recognised, not stored again');

  const background = await client.evermemos.write(
    { group_id: group, message_id: 'm3', create_time: '2025-01-15T10:03:00Z', sender: 'u1', content: 'See you there.' },
    { sync: false },
  );
  assert.ok(isAccepted(background));
  const status = await waitFor('the background write stored', async () => {
    const s = await client.evermemos.requestStatus(background.request_id);
    return s.result.status === 'accepted' ? undefined : s.result;
  });
  assert.ok(['stored', 'extracted'].includes(status.status));

  const page = await client.evermemos.list({ group_id: group });
  assert.equal(page.result.total_count, 4);
  assert.equal(page.result.memories[0]?.memory_type, 'message');

  await waitFor(
    'every message indexed',
    async () => (await client.evermemos.memoryStats(group)).result['indexed_messages'] === 4,
  );
  const hits = await client.evermemos.search({
    query: 'venue Friday',
    group_id: group,
    retrieve_method: 'keyword',
    memory_types: ['message'],
  });
  assert.equal(hits.result.memories[0]?.id, 'm2');
  const viaGet = await client.evermemos.searchByQuery({
    query: 'venue Friday',
    group_id: group,
    retrieve_method: 'keyword',
    memory_types: ['message'],
  });
  // a GET is answered as EverMemOS answers it: grouped by group
  assert.deepEqual(
    viaGet.result.memories.map((g) => Object.keys(g)),
    [[group]],
  );
  assert.deepEqual(
    viaGet.result.memories
      .flatMap((g) => Object.values(g).flat())
      .map((m) => m.id)
      .sort(),
    hits.result.memories.map((m) => m.id).sort(),
  );

  const flushed = await client.evermemos.flush(group);
  assert.ok(['extracted', 'extracting'].includes(flushed.result.status_info));

  await checkMemoryAgent(client, group);

  const deleted = await client.evermemos.delete({ group_id: group, message_id: 'm3' });
  assert.equal(deleted.result.deleted_messages, 1);
  await rejectsWith(client.evermemos.delete({ group_id: group, message_id: 'm3' }), {
    family: 'evermemos',
    status: 404,
    code: 'RESOURCE_NOT_FOUND',
  });
  await rejectsWith(client.evermemos.getConversationMeta(`${group}_none`), {
    family: 'evermemos',
    status: 404,
    code: 'RESOURCE_NOT_FOUND',
  });
  // The type allows what the server refuses (an empty content is fine, an empty sender is not).
  await rejectsWith(
    client.evermemos.write({
      group_id: group,
      message_id: 'bad',
      create_time: 'yesterday',
      sender: 'u1',
      content: 'x',
    }),
    { family: 'evermemos', status: 400, code: 'INVALID_PARAMETER' },
  );
  assert.equal((await client.evermemos.delete({ group_id: group })).result.deleted_messages, 3);
}

/** The Memory Agent's context covers the group's messages (as a summary, as gap messages, or both). */
async function checkMemoryAgent(client: MemstreamClient, group: string): Promise<void> {
  const context = await client.memoryAgent.context(group);
  assert.equal(context.conversation_id, group);
  assert.ok(context.memory !== null || context.gap_messages.length === 4);
  const text = await client.memoryAgent.contextText(group);
  assert.equal(typeof text, 'string');
  assert.ok(text.length > 0);
  const { summaries } = await client.memoryAgent.summaries(group);
  assert.ok(Array.isArray(summaries));
  await rejectsWith(client.memoryAgent.context(`${group}_none`), {
    family: 'memory-agent',
    status: 404,
    code: 'RESOURCE_NOT_FOUND',
  });
}
