import assert from 'node:assert/strict';
import { call, type Reply } from '../helpers/evermemos-client.js';
import { credentialsFor, useCredentials } from '../../harness/credentials.js';
import { openSse } from '../../harness/sse-client.js';

/** Headers of each kind of caller the rules tell apart. */
export interface Callers {
  readonly alice: Record<string, string>;
  readonly bob: Record<string, string>;
  readonly agent: Record<string, string>;
  readonly expired: Record<string, string>;
  readonly forged: Record<string, string>;
}

/** Makes `user` a member of the group at `level` (the memberships API comes with memory-service). */
export type Grant = (groupId: string, user: string, level: 'reader' | 'writer') => Promise<void>;

/**
 * Who reaches what across the EverMemOS, ARK and Memory Agent families once authentication is on:
 * alice creates a group and a session; bob, another person, finds neither (404 where an id is
 * named, left out of listings and searches, 403 on writes to ids alice holds) and changes
 * nothing; an agent key reaches both; no credentials, an expired token and a forged one are
 * refused with 401 in each family's shape. With `grant`, bob made a reader may read but not
 * write, and made a writer may write. `write` and `read` are the gateway and the read API (one
 * address in the embedded mode).
 */
export async function checkAccessRules(
  write: string,
  read: string,
  prefix: string,
  callers: Callers,
  grant?: Grant,
): Promise<void> {
  const group = `${prefix}-g`;
  const session = `${prefix}-s`;
  const as = (who: Record<string, string>) => {
    useCredentials(write, who);
    useCredentials(read, who);
  };
  // A person posts as themselves (see senderRefusal): each message names its writer.
  const message = (id: string, content: string, sender = 'alice') => ({
    group_id: group,
    message_id: id,
    create_time: '2025-01-15T10:00:00Z',
    sender,
    content,
  });

  as(callers.alice);
  assert.equal(
    (await call(write, 'POST', '/api/v1/memories', message('m1', 'the launch moves to friday'))).status,
    200,
  );
  const meta = {
    version: '1.0',
    scene: 'group_chat',
    scene_desc: 'launch planning',
    name: 'Launch',
    description: 'd',
    group_id: group,
    created_at: '2025-01-15T10:00:00Z',
    default_timezone: 'UTC',
    user_details: {},
  };
  const metaSaved = await call(write, 'POST', '/api/v1/memories/conversation-meta', meta);
  assert.equal(metaSaved.status, 200, JSON.stringify(metaSaved.body));
  assert.equal(
    (
      await call(read, 'POST', '/messages', {
        session_id: session,
        messages: [{ role: 'user', content: 'secret plan' }],
      })
    ).status,
    200,
  );
  const chunk = await fetch(`${read}/stream/${session}`, {
    method: 'POST',
    headers: { ...credentialsFor(read), 'content-type': 'application/x-ndjson' },
    body: '{"t":1}\n',
  });
  assert.equal(chunk.status, 200);
  assert.equal(await totalOf(read, group), 1);

  // Bob: named ids are not found, listings and searches leave them out, writes are refused.
  as(callers.bob);
  assert.equal(await totalOf(read, group), 0);
  const everything = await call<{ result: { memories: Array<{ group_id: string }> } }>(
    read,
    'GET',
    '/api/v1/memories?limit=500',
  );
  assert.equal(everything.status, 200);
  assert.ok(
    everything.body.result.memories.every((m) => m.group_id !== group),
    'a listing without a group leaves alice out',
  );
  const found = await call<{ result: { memories: unknown[]; pending_messages: unknown[] } }>(
    read,
    'POST',
    '/api/v1/memories/search',
    { query: 'launch friday', group_id: group, retrieve_method: 'keyword' },
  );
  assert.equal(found.status, 200);
  assert.deepEqual([found.body.result.memories.length, found.body.result.pending_messages.length], [0, 0]);
  for (const [method, path, body] of [
    ['GET', `/api/v1/memories/conversation-meta?group_id=${group}`],
    ['GET', `/api/v1/stats/memory?group_id=${group}`],
    ['POST', '/api/v1/memories/flush', { group_id: group }],
    ['DELETE', `/api/v1/memories?group_id=${group}`],
    ['DELETE', '/api/v1/memories?user_id=alice'],
  ] as const) {
    const res = await call<{ status: string; code: string }>(read, method, path, body);
    assert.deepEqual(
      [res.status, res.body.status, res.body.code],
      [404, 'failed', 'RESOURCE_NOT_FOUND'],
      `${method} ${path}`,
    );
  }
  for (const path of [`/api/v1/summaries?conversation_id=${group}`, `/api/v1/context?conversation_id=${group}`]) {
    const res = await call<{ error: { code: string } }>(read, 'GET', path);
    assert.deepEqual([res.status, res.body.error.code], [404, 'RESOURCE_NOT_FOUND'], path);
  }
  const arkList = await call<{ total: number }>(read, 'GET', `/messages?session_id=${session}`);
  assert.deepEqual([arkList.status, arkList.body.total], [200, 0]);
  const sessions = await call<{ sessions: string[] }>(read, 'GET', '/sessions');
  assert.ok(!sessions.body.sessions.includes(session), 'the session list leaves alice out');
  assert.equal((await call<{ code: string }>(read, 'GET', `/stream/${session}?from-beginning=true`)).status, 404);
  assert.equal((await call(read, 'POST', `/session/${session}/complete`)).status, 404);
  const relayed = await fetch(`${read}/stream/${session}`, {
    method: 'POST',
    headers: { ...credentialsFor(read), 'content-type': 'application/x-ndjson' },
    body: '{"t":2}\n',
  });
  assert.equal(relayed.status, 403);
  const intruded = await call<{ code: string }>(
    write,
    'POST',
    '/api/v1/memories',
    message('m2', 'bob was here', 'bob'),
  );
  assert.deepEqual([intruded.status, intruded.body.code], [403, 'FORBIDDEN']);
  const arkIntruded = await call<{ code: string; error: string }>(read, 'POST', '/messages', {
    session_id: session,
    messages: [{ role: 'user', content: 'bob' }],
  });
  assert.deepEqual([arkIntruded.status, arkIntruded.body.code], [403, 'FORBIDDEN']);

  // Bob changed nothing: alice still has her one message, her session its one message, open.
  as(callers.alice);
  assert.equal(await totalOf(read, group), 1);
  assert.equal((await call<{ total: number }>(read, 'GET', `/messages?session_id=${session}`)).body.total, 1);

  // An agent reaches everything.
  as(callers.agent);
  assert.equal(await totalOf(read, group), 1);
  assert.ok((await call<{ sessions: string[] }>(read, 'GET', '/sessions')).body.sessions.includes(session));

  // No credentials, an expired token, a forged one: 401 in the family's shape, and health stays open.
  for (const who of [{}, callers.expired, callers.forged]) {
    as(who);
    const evermemos = await call<{ status: string; code: string }>(read, 'GET', `/api/v1/memories?group_id=${group}`);
    assert.deepEqual(
      [evermemos.status, evermemos.body.status, evermemos.body.code],
      [401, 'failed', 'UNAUTHENTICATED'],
    );
    const evermemosWrite = await call<{ code: string }>(write, 'POST', '/api/v1/memories', message('m3', 'anonymous'));
    assert.deepEqual([evermemosWrite.status, evermemosWrite.body.code], [401, 'UNAUTHENTICATED']);
    const ark = await call<{ error: string; code: string }>(read, 'GET', `/messages?session_id=${session}`);
    assert.deepEqual([ark.status, ark.body.code, typeof ark.body.error], [401, 'UNAUTHENTICATED', 'string']);
    const stream = await openSse(`${read}/stream/${session}?from-beginning=true`);
    assert.equal(stream.status, 401);
    const agentFamily = await call<{ error: { code: string } }>(
      read,
      'GET',
      `/api/v1/summaries?conversation_id=${group}`,
    );
    assert.deepEqual([agentFamily.status, agentFamily.body.error.code], [401, 'UNAUTHENTICATED']);
    assert.equal((await fetch(`${read}/health`)).status, 200);
  }

  if (!grant) return;
  await grant(group, 'bob', 'reader');
  as(callers.bob);
  assert.equal(await totalOf(read, group), 1, 'a reader reads');
  const asReader = await call<{ code: string }>(
    write,
    'POST',
    '/api/v1/memories',
    message('m4', 'reader writes', 'bob'),
  );
  assert.deepEqual([asReader.status, asReader.body.code], [403, 'FORBIDDEN'], 'a reader may not write');
  assert.equal((await call(read, 'POST', '/api/v1/memories/flush', { group_id: group })).status, 403);
  await grant(group, 'bob', 'writer');
  assert.equal((await call(write, 'POST', '/api/v1/memories', message('m5', 'writer writes', 'bob'))).status, 200);
  assert.equal(await totalOf(read, group), 2);
  const asWriterDeletes = await call(read, 'DELETE', `/api/v1/memories?group_id=${group}`);
  assert.equal(asWriterDeletes.status, 403, 'forgetting needs manager');
  useCredentials(write, {});
  useCredentials(read, {});
}

async function totalOf(read: string, group: string): Promise<number> {
  const res: Reply<{ result: { total_count: number } }> = await call(
    read,
    'GET',
    `/api/v1/memories?group_id=${group}&limit=500`,
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.result.total_count;
}
