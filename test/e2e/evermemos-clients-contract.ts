import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { UNFORMED_MEMORY_TYPES } from '@memstream/schemas';
import { credentialsFor } from '../../harness/credentials.js';
import { call, messagesOf } from '../helpers/evermemos-client.js';
import { waitFor } from '../helpers/infra.js';

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
  assert.ok('detail' in everything.body, "FastAPI's validation list, which its clients look for");
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

type Memory = Record<string, unknown>;
type Listing = { memories: Memory[]; total_count: number; has_more: boolean; metadata: Record<string, unknown> };

/**
 * GET with a JSON body, as EverMemOS's SDK (`extra_body`) and controller tests (`requests`) fetch
 * and search. fetch() refuses a body on GET, so this goes through node:http as those clients do.
 */
export function getWithBody<T = Envelope>(
  base: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: T }> {
  const payload = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${base}${path}`,
      {
        method: 'GET',
        headers: {
          ...credentialsFor(base),
          'content-type': 'application/json',
          'content-length': String(payload.length),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) as T }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Reads the way EverMemOS's clients make them: filters in a GET body, every memory kind they know,
 * the group narrative as `user_id: ""`, search answered grouped by group, and a delete by the
 * `event_id` a fetched memory names.
 */
export async function checkClientReads(write: string, read: string, group: string): Promise<void> {
  const other = `${group}-other`;
  await say(write, other, 'o1', 'ana', 'Nothing about the offsite here, only lunch.', '2025-03-02T12:00:00Z');
  await call(read, 'POST', '/api/v1/memories/flush', { group_id: other });
  await say(write, group, 'e1', 'ana', 'The offsite is in Lisbon on Friday.', '2025-03-03T09:00:00Z');
  await say(write, group, 'e2', 'ben', 'Lisbon on Friday suits me, I will book flights.', '2025-03-03T09:01:00Z');
  const flushed = await call<Envelope>(read, 'POST', '/api/v1/memories/flush', { group_id: group });
  assert.equal(flushed.body.result['status_info'], 'extracted', JSON.stringify(flushed.body));
  await say(write, group, 'e3', 'ana', 'Flights to Lisbon are booked.', '2025-03-03T10:00:00Z');

  // 1. One user's episodic memories in one group, filters in the GET body: nothing else comes back.
  const anas = await getWithBody<{ result: Listing }>(read, '/api/v1/memories', {
    user_id: 'ana',
    group_id: group,
    memory_type: 'episodic_memory',
    limit: 10,
    offset: 0,
  });
  assert.equal(anas.status, 200, JSON.stringify(anas.body));
  assert.equal(anas.body.result.total_count, 1, JSON.stringify(anas.body.result));
  const [anaMemory] = anas.body.result.memories;
  assert.equal(anaMemory!['memory_type'], 'episodic_memory');
  assert.equal(anaMemory!['user_id'], 'ana');
  assert.equal(anaMemory!['group_id'], group);
  assert.equal(anaMemory!['episode_id'], anaMemory!['id'], 'episode_id is the memory id, as in EverMemOS');
  assert.equal(typeof anaMemory!['summary'], 'string');
  assert.ok((anaMemory!['summary'] as string).length > 0);
  assert.deepEqual(anas.body.result.metadata, {
    source: 'memstream',
    user_id: 'ana',
    memory_type: 'episodic_memory',
    limit: 10,
    group_id: group,
  });
  // the same through the query string
  const byQuery = await call<{ result: Listing }>(
    read,
    'GET',
    `/api/v1/memories?user_id=ana&group_id=${group}&memory_type=episodic_memory`,
  );
  assert.deepEqual(
    byQuery.body.result.memories.map((m) => m['id']),
    [anaMemory!['id']],
  );
  // "__all__" is anyone: ana's, ben's and the narrative; user_id "" is the group's own narrative only
  const everyone = await getWithBody<{ result: Listing }>(read, '/api/v1/memories', {
    user_id: '__all__',
    group_id: group,
    memory_type: 'episodic_memory',
  });
  assert.equal(everyone.body.result.total_count, 3, JSON.stringify(everyone.body.result));
  const narrative = await getWithBody<{ result: Listing }>(read, '/api/v1/memories', {
    user_id: '',
    group_id: group,
    memory_type: 'episodic_memory',
  });
  assert.equal(narrative.status, 200, JSON.stringify(narrative.body));
  assert.deepEqual(
    narrative.body.result.memories.map((m) => m['user_id']),
    [null],
  );
  const notJson = await getWithBody<Envelope>(read, '/api/v1/memories', '{"group_id": ');
  assert.deepEqual(
    [notJson.status, notJson.body.code],
    [400, 'INVALID_PARAMETER'],
    'a GET body that is not JSON is refused',
  );
  const notObject = await getWithBody<Envelope>(read, '/api/v1/memories/search', '["query"]');
  assert.deepEqual([notObject.status, notObject.body.code], [400, 'INVALID_PARAMETER']);
  const bothAny = await getWithBody<Envelope>(read, '/api/v1/memories', { user_id: '__all__', group_id: '__all__' });
  assert.equal(bothAny.status, 400);
  assert.match(bothAny.body.message, /cannot both be MAGIC_ALL/);

  // 2. EverMemOS's other memory kinds (every name its enum has held) are answered, empty: memstream forms none of them.
  for (const kind of UNFORMED_MEMORY_TYPES) {
    const res = await getWithBody<{ result: Listing }>(read, '/api/v1/memories', {
      user_id: 'ana',
      memory_type: kind,
    });
    assert.equal(res.status, 200, `${kind}: ${JSON.stringify(res.body)}`);
    assert.deepEqual([res.body.result.memories, res.body.result.total_count, res.body.result.has_more], [[], 0, false]);
    assert.equal(res.body.result.metadata['memory_type'], kind);
    assert.equal(res.body.result.metadata['user_id'], 'ana');
  }

  // 3. Search with a GET body: grouped by group, scores alike, metadata, pending messages with ids.
  const found = await waitFor('the memories searchable', async () => {
    const res = await getWithBody<{ result: Record<string, unknown> }>(read, '/api/v1/memories/search', {
      query: 'Lisbon offsite',
      group_id: group,
      retrieve_method: 'keyword',
      memory_types: ['episodic_memory', 'message'],
      top_k: 10,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (res.body.result['total_count'] as number) >= 4 ? res.body.result : undefined;
  });
  const groups = found['memories'] as Array<Record<string, Memory[]>>;
  assert.deepEqual(
    groups.map((g) => Object.keys(g)),
    [[group]],
  );
  const scores = found['scores'] as Array<Record<string, number[]>>;
  assert.equal(scores[0]![group]!.length, groups[0]![group]!.length, 'a score for every memory');
  assert.ok(scores[0]![group]!.every((s) => s >= 0 && s <= 1));
  const times = groups[0]![group]!.map((m) => Date.parse(m['timestamp'] as string));
  assert.deepEqual(
    times,
    [...times].sort((a, b) => a - b),
    "a group's memories in time order",
  );
  for (const m of groups[0]![group]!) {
    for (const key of ['memory_type', 'user_id', 'timestamp', 'ori_event_id_list']) assert.ok(key in m, key);
  }
  assert.deepEqual(found['importance_scores'], [Math.max(...scores[0]![group]!)]);
  assert.equal(found['has_more'], false);
  assert.deepEqual(found['metadata'], {
    source: 'keyword',
    user_id: '__all__',
    memory_type: 'retrieve',
    limit: 10,
    group_id: group,
  });
  const pending = found['pending_messages'] as Memory[];
  assert.deepEqual(
    pending.map((m) => m['message_id']),
    ['e3'],
  );
  assert.ok('id' in pending[0]! && 'request_id' in pending[0]!);

  // agentic runs (as hybrid); user_id "" searches the narrative only; POST keeps the flat list
  const agentic = await getWithBody<{ result: Record<string, unknown> }>(read, '/api/v1/memories/search', {
    query: 'Lisbon',
    group_id: group,
    retrieve_method: 'agentic',
  });
  assert.equal(agentic.status, 200, JSON.stringify(agentic.body));
  const narrativeHits = await getWithBody<{ result: Record<string, unknown> }>(read, '/api/v1/memories/search', {
    query: 'Lisbon offsite',
    group_id: group,
    user_id: '',
    retrieve_method: 'keyword',
  });
  assert.equal(narrativeHits.status, 200, JSON.stringify(narrativeHits.body));
  const narrativeGroup = (narrativeHits.body.result['memories'] as Array<Record<string, Memory[]>>)[0]![group]!;
  assert.deepEqual(
    narrativeGroup.map((m) => [m['memory_type'], m['user_id']]),
    [['episodic_memory', null]],
  );
  const flat = await call<{ result: { memories: Memory[] } }>(read, 'POST', '/api/v1/memories/search', {
    query: 'Lisbon offsite',
    group_id: group,
    retrieve_method: 'keyword',
  });
  assert.ok(flat.body.result.memories.length >= 4 && flat.body.result.memories.every((m) => 'score' in m));
  const everywhere = await getWithBody<Envelope>(read, '/api/v1/memories/search', {
    query: 'Lisbon',
    user_id: '__all__',
    group_id: '__all__',
  });
  assert.equal(everywhere.status, 400);
  assert.match(everywhere.body.message, /cannot both be MAGIC_ALL/);
  // EverMemOS's search must name a group or a user (its server says so); memstream's POST need not
  const unnamed = await getWithBody<Envelope>(read, '/api/v1/memories/search', { query: 'Lisbon' });
  assert.equal(unnamed.status, 400);
  assert.match(unnamed.body.message, /cannot both be MAGIC_ALL/);
  const acrossGroups = await call(read, 'POST', '/api/v1/memories/search', {
    query: 'Lisbon',
    retrieve_method: 'keyword',
  });
  assert.equal(acrossGroups.status, 200);

  // 4. Delete by the event_id a fetched memory names: that episode's messages go, nothing else.
  const [eventId] = anaMemory!['memcell_event_id_list'] as string[];
  const deleted = await call<Envelope>(read, 'DELETE', '/api/v1/memories', {
    event_id: eventId,
    user_id: '__all__',
    group_id: '__all__',
  });
  assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
  assert.deepEqual(deleted.body.result['filters'], ['event_id']);
  assert.deepEqual(
    (await messagesOf(read, group)).memories.map((m) => m.message_id),
    ['e3'],
  );
  assert.equal((await messagesOf(read, other)).total_count, 1, 'the other group is untouched');
  const again = await call<Envelope>(read, 'DELETE', '/api/v1/memories', { event_id: eventId });
  assert.equal(again.status, 404);
}

/**
 * Metadata as EverMemOS's later clients write it: no `version` (its January 2026 run_memorize.py),
 * no `user_details`, a PATCH with nothing to change, fields left alone sent as null.
 */
export async function checkClientMetadata(write: string, read: string, group: string): Promise<void> {
  const saved = await call<Envelope>(write, 'POST', '/api/v1/memories/conversation-meta', {
    scene: 'group_chat',
    scene_desc: { description: 'Release planning' },
    name: 'Release crew',
    description: 'Planning the spring release',
    group_id: group,
    created_at: '2025-04-01T08:00:00Z',
    default_timezone: 'UTC',
  });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  assert.equal(saved.body.result['version'], null);
  assert.equal(saved.body.result['conversation_created_at'], '2025-04-01T08:00:00.000Z');
  const got = await getWithBody<Envelope>(read, '/api/v1/memories/conversation-meta', { group_id: group });
  assert.equal(got.status, 200, JSON.stringify(got.body));
  assert.deepEqual(
    [
      got.body.result['version'],
      got.body.result['user_details'],
      got.body.result['name'],
      got.body.result['is_default'],
    ],
    [null, {}, 'Release crew', false],
  );
  await say(write, group, 'r1', 'ana', 'Release candidate is out.', '2025-04-01T09:00:00Z');
  const [stored] = (await messagesOf(read, group)).memories;
  assert.equal(stored!.group_name, 'Release crew', 'the metadata was kept and feeds the messages');

  const nothing = await call<Envelope>(write, 'PATCH', '/api/v1/memories/conversation-meta', { group_id: group });
  assert.equal(nothing.status, 200, JSON.stringify(nothing.body));
  assert.deepEqual(nothing.body.result['updated_fields'], []);
  assert.equal(nothing.body.result['id'], saved.body.result['id']);
  const nulls = await call<Envelope>(write, 'PATCH', '/api/v1/memories/conversation-meta', {
    group_id: group,
    name: null,
    tags: ['spring'],
  });
  assert.equal(nulls.status, 200, JSON.stringify(nulls.body));
  assert.deepEqual(nulls.body.result['updated_fields'], ['tags']);
  const after = await call<Envelope>(read, 'GET', `/api/v1/memories/conversation-meta?group_id=${group}`);
  assert.deepEqual([after.body.result['name'], after.body.result['tags']], ['Release crew', ['spring']]);
  const nowhere = await call<Envelope>(write, 'PATCH', '/api/v1/memories/conversation-meta', {
    group_id: `${group}-none`,
  });
  assert.equal(nowhere.status, 404, 'nothing to change in a group without metadata is still a 404');
}
