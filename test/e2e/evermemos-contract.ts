import assert from 'node:assert/strict';
import { call, messagesOf, requestStatus } from '../helpers/evermemos-client.js';

/**
 * The EverMemOS write API's rules, checked against a running memstream: `write` is where the
 * gateway listens, `read` the read API (the same address in the embedded mode). Every check reads
 * right after the write returns, so read-your-writes is part of each one. `group` keeps runs apart.
 */
export async function checkWriteContract(write: string, read: string, group: string): Promise<void> {
  const message = {
    group_id: group,
    group_name: 'Project Discussion Group',
    message_id: 'msg_001',
    create_time: '2025-01-15T10:00:00+08:00',
    sender: 'user_001',
    sender_name: 'Zhang San',
    content: "Let's discuss the technical approach for the new feature today",
    refer_list: ['msg_000'],
  };

  // 1. A stored message answers 200 with the result envelope, and is readable at once.
  const first = await call<{ status: string; result: Record<string, unknown> }>(
    write,
    'POST',
    '/api/v1/memories',
    message,
  );
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.status, 'ok');
  const result = first.body.result;
  assert.deepEqual(result['saved_memories'], []);
  assert.equal(result['count'], 0);
  assert.equal(result['status_info'], 'accumulated');
  assert.equal(result['duplicate'], false);
  assert.equal(result['sequence'], 0);
  assert.equal(typeof result['request_id'], 'string');
  let stored = await messagesOf(read, group);
  assert.equal(stored.total_count, 1, 'read-your-writes: visible when the call returns');
  assert.deepEqual(
    { ...stored.memories[0] },
    {
      memory_type: 'message',
      message_id: 'msg_001',
      group_id: group,
      group_name: 'Project Discussion Group',
      user_id: 'user_001',
      sender_name: 'Zhang San',
      timestamp: '2025-01-15T02:00:00.000Z',
      content: message.content,
      refer_list: ['msg_000'],
      sequence: 0,
    },
  );
  const firstStatus = await requestStatus(read, result['request_id'] as string);
  assert.equal(firstStatus.status, 200);
  assert.equal(firstStatus.body.result['status'], 'stored');
  assert.equal(firstStatus.body.result['message_id'], 'msg_001');

  // 2. The same message_id again: 200, said to be a duplicate, stored once.
  const again = await call<{ message: string; result: Record<string, unknown> }>(write, 'POST', '/api/v1/memories', {
    ...message,
    content: 'changed',
  });
  assert.equal(again.status, 200);
  assert.equal(again.body.result['duplicate'], true);
  assert.match(again.body.message, /Duplicate message/);
  stored = await messagesOf(read, group);
  assert.equal(stored.total_count, 1);
  assert.equal(stored.memories[0]!.content, message.content, 'the first copy is kept');

  // 3. Rejected writes store nothing.
  const bad = await call<{ status: string; code: string; message: string; path: string }>(
    write,
    'POST',
    '/api/v1/memories',
    { ...message, message_id: 'msg_bad', create_time: 'soon' },
  );
  assert.equal(bad.status, 400);
  assert.deepEqual(
    [bad.body.status, bad.body.code, bad.body.path],
    ['failed', 'INVALID_PARAMETER', '/api/v1/memories'],
  );
  assert.match(bad.body.message, /create_time/);
  assert.equal((await messagesOf(read, group)).total_count, 1);

  // 4. Zone-less times are UTC; refer_list takes ids or objects with message_id; sender_name defaults to sender.
  const second = await call(write, 'POST', '/api/v1/memories', {
    group_id: group,
    message_id: 'msg_002',
    create_time: '2025-01-15T10:05:00',
    sender: 'user_002',
    content: 'I agree',
    refer_list: [{ message_id: 'msg_001', note: 'reply' }, 'msg_000'],
  });
  assert.equal(second.status, 200);
  stored = await messagesOf(read, group);
  const reply = stored.memories.find((m) => m.message_id === 'msg_002')!;
  assert.equal(reply.timestamp, '2025-01-15T10:05:00.000Z');
  assert.deepEqual(reply.refer_list, ['msg_001', 'msg_000']);
  assert.equal(reply.sender_name, 'user_002');
  assert.equal(reply.sequence, 1);

  // 5. A message without group_id is the sender's private chat.
  const sender = `${group}-solo`;
  const priv = await call(write, 'POST', '/api/v1/memories', {
    message_id: 'p1',
    create_time: '2025-01-15T10:00:00Z',
    sender,
    content: 'note to self',
  });
  assert.equal(priv.status, 200);
  assert.equal((priv.body as { result: { group_id: string } }).result.group_id, `private:${sender}`);
  assert.equal((await messagesOf(read, `private:${sender}`)).total_count, 1);

  // 6. Unknown request ids are 404 in the envelope.
  const unknown = await requestStatus(read, 'no-such-request');
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.code, 'RESOURCE_NOT_FOUND');

  // 7. sync_mode=false answers 202 at once; the status then reaches stored.
  const async202 = await call<{ request_id: string }>(write, 'POST', '/api/v1/memories?sync_mode=false', {
    ...message,
    message_id: 'msg_003',
  });
  assert.equal(async202.status, 202);
  const seen = await requestStatus(read, async202.body.request_id);
  assert.ok(['accepted', 'stored'].includes(seen.body.result['status'] as string), JSON.stringify(seen.body));

  // 8. Conversation metadata: upsert, read, patch, and the converter uses it.
  const meta = {
    version: '1.0',
    scene: 'group_chat',
    scene_desc: 'Project team discussion',
    name: 'Project Discussion Group',
    description: 'Technical discussion',
    group_id: group,
    created_at: '2025-01-15T10:00:00+08:00',
    default_timezone: 'Asia/Shanghai',
    user_details: { user_003: { full_name: 'Wang Wu', role: 'assistant', extra: { team: 'bots' } } },
    tags: ['work'],
  };
  const saved = await call<{ status: string; message: string; result: Record<string, unknown> }>(
    write,
    'POST',
    '/api/v1/memories/conversation-meta',
    meta,
  );
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  assert.equal(saved.body.message, 'Conversation metadata saved successfully');
  assert.match(saved.body.result['id'] as string, /^[0-9a-f]{24}$/);
  assert.deepEqual(
    [
      saved.body.result['group_id'],
      saved.body.result['scene'],
      saved.body.result['name'],
      saved.body.result['version'],
      saved.body.result['created_at'],
    ],
    [group, 'group_chat', 'Project Discussion Group', '1.0', '2025-01-15T02:00:00.000Z'],
  );
  const read1 = await call<{ result: Record<string, unknown> }>(
    read,
    'GET',
    `/api/v1/memories/conversation-meta?group_id=${group}`,
  );
  assert.equal(read1.status, 200);
  assert.deepEqual(read1.body.result['user_details'], meta.user_details);
  assert.deepEqual(read1.body.result['tags'], ['work']);

  const patched = await call<{ message: string; result: Record<string, unknown> }>(
    write,
    'PATCH',
    '/api/v1/memories/conversation-meta',
    { group_id: group, name: 'Renamed', tags: ['a', 'b'] },
  );
  assert.equal(patched.status, 200);
  assert.deepEqual(patched.body.result['updated_fields'], ['name', 'tags']);
  assert.equal(patched.body.result['id'], saved.body.result['id'], 'the id survives updates');
  assert.match(patched.body.message, /2 fields updated/);
  const read2 = await call<{ result: Record<string, unknown> }>(
    read,
    'GET',
    `/api/v1/memories/conversation-meta?group_id=${group}`,
  );
  assert.equal(read2.body.result['name'], 'Renamed');
  assert.equal(read2.body.result['description'], 'Technical discussion', 'fields not patched are kept');

  const missing = await call<{ code: string; message: string }>(write, 'PATCH', '/api/v1/memories/conversation-meta', {
    group_id: `${group}-none`,
    name: 'x',
  });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.code, 'RESOURCE_NOT_FOUND');
  assert.match(missing.body.message, /not found/);
  assert.equal((await call(read, 'GET', `/api/v1/memories/conversation-meta?group_id=${group}-none`)).status, 404);

  const fromBot = await call(write, 'POST', '/api/v1/memories', {
    group_id: group,
    message_id: 'msg_004',
    create_time: '2025-01-15T10:06:00Z',
    sender: 'user_003',
    content: 'Here is a plan',
  });
  assert.equal(fromBot.status, 200);
  const bot = (await messagesOf(read, group)).memories.find((m) => m.message_id === 'msg_004')!;
  assert.equal(bot.sender_name, 'Wang Wu', 'the participant name comes from the metadata');
  assert.equal(bot.group_name, 'Renamed', 'the group name comes from the metadata');
}
