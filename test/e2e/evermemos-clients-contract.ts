import assert from 'node:assert/strict';
import { call, messagesOf } from '../helpers/evermemos-client.js';

/**
 * What EverMemOS's own clients do, replayed against a running memstream (`write` the gateway,
 * `read` the read API): its SDK (`evermemos` 0.3.6) deletes with a JSON body and reads with GET
 * plus a JSON body, as its controller tests do; its answers are read the way those clients read them.
 */
type Envelope = { status: string; code?: string; message: string; result: Record<string, unknown> };

async function say(write: string, group: string, id: string, sender: string, content: string, at: string) {
  const res = await call(write, 'POST', '/api/v1/memories', {
    group_id: group,
    message_id: id,
    create_time: at,
    sender,
    content,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as Envelope;
}

/** A delete names its filters; one the server does not know never widens it to the whole group. */
export async function checkDeleteFilters(write: string, read: string, group: string): Promise<void> {
  await say(write, group, 'd1', 'ana', 'The offsite moves to Friday.', '2025-03-01T09:00:00Z');
  await say(write, group, 'd2', 'ben', 'Friday works for me.', '2025-03-01T09:01:00Z');
  await say(write, group, 'd3', 'ana', 'Booking the room now.', '2025-03-01T09:02:00Z');

  // The SDK's delete(event_id=<unknown>, group_id=G): nothing has that id, so nothing goes.
  const unknownEvent = await call<Envelope>(read, 'DELETE', '/api/v1/memories', {
    event_id: '987654321',
    group_id: group,
  });
  assert.equal(unknownEvent.status, 404, JSON.stringify(unknownEvent.body));
  assert.equal(unknownEvent.body.code, 'RESOURCE_NOT_FOUND');
  assert.equal((await messagesOf(read, group)).total_count, 3, 'an unknown event_id deletes nothing of the group');
  const notAnId = await call<Envelope>(read, 'DELETE', '/api/v1/memories', { event_id: 'evt-x', group_id: group });
  assert.equal(notAnId.status, 404);
  assert.equal((await messagesOf(read, group)).total_count, 3);

  // A key the server does not filter by is refused, not dropped (dropping it would widen the delete).
  const unknownKey = await call<Envelope>(read, 'DELETE', '/api/v1/memories', { memory_id: 'm1', group_id: group });
  assert.equal(unknownKey.status, 400, JSON.stringify(unknownKey.body));
  assert.match(unknownKey.body.message, /memory_id/);
  assert.equal((await messagesOf(read, group)).total_count, 3);

  // Every filter "__all__" (EverMemOS's word for "any") is no filter at all: 422, as its server answers.
  const everything = await call<Envelope>(read, 'DELETE', '/api/v1/memories', {
    event_id: '__all__',
    user_id: '__all__',
    group_id: '__all__',
  });
  assert.equal(everything.status, 422, JSON.stringify(everything.body));
  assert.equal(everything.body.status, 'failed');
  assert.equal((await messagesOf(read, group)).total_count, 3);

  // Filters are ANDed: ben's message in this group, and only that; "__all__" leaves event_id out.
  const bens = await call<Envelope>(read, 'DELETE', '/api/v1/memories?sync_mode=true', {
    event_id: '__all__',
    user_id: 'ben',
    group_id: group,
  });
  assert.equal(bens.status, 200, JSON.stringify(bens.body));
  assert.deepEqual(bens.body.result['filters'], ['user_id', 'group_id']);
  assert.equal(bens.body.result['count'], 1);
  assert.deepEqual(
    (await messagesOf(read, group)).memories.map((m) => m.message_id),
    ['d3', 'd1'],
  );
  const none = await call<Envelope>(read, 'DELETE', '/api/v1/memories', { user_id: 'ben', group_id: group });
  assert.equal(none.status, 404, 'nothing left to match');
}
