import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { RequestOutcome } from '@memstream/schemas';
import { recordRequestOutcomes } from '@memstream/store';
import { waitFor } from '../../../test/helpers/infra.js';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';
import { gateway } from './gateway-alone.js';

const valid = { group_id: 'g', message_id: 'm1', create_time: '2025-01-15T10:00:00', sender: 'u', content: 'hi' };
const meta = {
  version: '1.0',
  scene: 'group_chat',
  scene_desc: 'Team',
  name: 'Team',
  description: 'd',
  group_id: 'g',
  created_at: '2025-01-15T10:00:00+08:00',
  default_timezone: 'Asia/Shanghai',
  user_details: { u: { full_name: 'U' } },
};

function assertEnvelope(
  res: { statusCode: number; json(): unknown },
  status: number,
  code: string,
  pattern: RegExp,
  path: string,
  label: string,
) {
  assert.equal(res.statusCode, status, label);
  const body = res.json() as Record<string, string>;
  assert.equal(body['status'], 'failed', label);
  assert.equal(body['code'], code, label);
  assert.match(body['message']!, pattern, label);
  assert.equal(body['path'], path, label);
  assert.ok(!Number.isNaN(Date.parse(body['timestamp']!)), label);
}

test('rejected writes use the EverMemOS envelope, name the field, and publish nothing', async (t) => {
  const { server, published } = await gateway(t);
  const cases: Array<[string, string, string, string, RegExp]> = [
    [
      'missing message_id',
      'POST',
      '/api/v1/memories?x=1',
      JSON.stringify({ ...valid, message_id: undefined }),
      /missing required field message_id/,
    ],
    [
      'missing content',
      'POST',
      '/api/v1/memories',
      JSON.stringify({ ...valid, content: undefined }),
      /missing required field content/,
    ],
    [
      'bad create_time',
      'POST',
      '/api/v1/memories',
      JSON.stringify({ ...valid, create_time: 'yesterday' }),
      /invalid field create_time/,
    ],
    [
      'refer_list not an array',
      'POST',
      '/api/v1/memories',
      JSON.stringify({ ...valid, refer_list: 'm0' }),
      /invalid field refer_list/,
    ],
    [
      'refer_list item without message_id',
      'POST',
      '/api/v1/memories',
      JSON.stringify({ ...valid, refer_list: [{ id: 'm0' }] }),
      /refer_list/,
    ],
    [
      'NUL in content',
      'POST',
      '/api/v1/memories',
      JSON.stringify({ ...valid, content: 'a\u0000b' }),
      /invalid field content: NUL .* cannot be stored/,
    ],
    [
      'NUL in user_details',
      'POST',
      '/api/v1/memories/conversation-meta',
      JSON.stringify({ ...meta, user_details: { u: { full_name: '\u0000' } } }),
      /invalid field user_details.u.full_name/,
    ],
    ['not JSON', 'POST', '/api/v1/memories', '{"message_id": ', /Invalid request/],
    ['a JSON array', 'POST', '/api/v1/memories', '[]', /must be a JSON object/],
    ['bad sync_mode', 'POST', '/api/v1/memories?sync_mode=maybe', JSON.stringify(valid), /invalid field sync_mode/],
    [
      // user_details and version may be left out (EverMemOS defaults them); scene may not
      'meta missing scene',
      'POST',
      '/api/v1/memories/conversation-meta',
      JSON.stringify({ ...meta, scene: undefined }),
      /missing required field scene/,
    ],
    [
      'meta bad timezone',
      'POST',
      '/api/v1/memories/conversation-meta',
      JSON.stringify({ ...meta, default_timezone: 'Mars/Base' }),
      /invalid field default_timezone/,
    ],
    [
      // without group_id (or null) a PATCH is the default config's; an empty one is no group
      'patch of an empty group_id',
      'PATCH',
      '/api/v1/memories/conversation-meta',
      JSON.stringify({ group_id: '', name: 'x' }),
      /invalid field group_id/,
    ],
    [
      'patch of an immutable field',
      'PATCH',
      '/api/v1/memories/conversation-meta',
      JSON.stringify({ group_id: 'g', scene: 'x' }),
      /scene is immutable/,
    ],
    [
      'patch of an unknown field',
      'PATCH',
      '/api/v1/memories/conversation-meta',
      JSON.stringify({ group_id: 'g', colour: 'red' }),
      /Unknown field colour/,
    ],
  ];
  for (const [label, method, url, payload, pattern] of cases) {
    const res = await server.inject({
      method: method as 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      payload,
    });
    assertEnvelope(res, 400, 'INVALID_PARAMETER', pattern, url.split('?')[0]!, label);
  }
  await new Promise((r) => setImmediate(r));
  assert.equal(published.length, 0, 'nothing rejected reached the topic');

  const ok = await server.inject({ method: 'POST', url: '/api/v1/memories?sync_mode=false', payload: valid });
  assert.equal(ok.statusCode, 202);
  await new Promise((r) => setImmediate(r));
  assert.equal(published.length, 1, 'the valid message was published');
  const event = JSON.parse(published[0]!.value.toString()) as { id: string; type: string; data: unknown };
  assert.equal(event.id, (ok.json() as { request_id: string }).request_id, 'the request id is the event id');
  assert.equal(event.type, 'group_chat.message.received');
  assert.equal(published[0]!.key, 'g', 'keyed by the group');
});

test('with nothing storing it, a sync write answers 202 with its request id when the wait ends', async (t) => {
  const { server } = await gateway(t, { syncTimeoutMs: 100 });
  const res = await server.inject({ method: 'POST', url: '/api/v1/memories', payload: valid });
  assert.equal(res.statusCode, 202);
  assert.deepEqual(Object.keys(res.json() as object).sort(), ['message', 'request_id', 'status']);
  assert.equal((res.json() as { message: string }).message, 'Request accepted, processing in background');
});

/**
 * A held write whose outcome a converter records in the store without announcing it: a notice
 * lost (the fan-out is fire-and-forget) or later than the wait. Resolves with the answer.
 */
async function heldWriteOutcomeUnannounced(t: TestContext, outcome: Partial<RequestOutcome>) {
  const store = await migratedPglite();
  t.after(() => store.close());
  const { server, published } = await gateway(t, { syncTimeoutMs: 1000, store });
  const held = server.inject({ method: 'POST', url: '/api/v1/memories', payload: valid });
  await waitFor('the held request published', async () => published.length === 1);
  const requestId = (JSON.parse(published[0]!.value.toString()) as { id: string }).id;
  const base = { kind: 'message', group_id: 'g', message_id: 'm1', duplicate: false } as const;
  await recordRequestOutcomes(store, [
    {
      ...base,
      status: 'stored',
      result: null,
      error_code: null,
      error_message: null,
      ...outcome,
      request_id: requestId,
    },
  ]);
  return held;
}

test('a held write whose outcome is stored but never announced answers 200, not 202', async (t) => {
  const res = await heldWriteOutcomeUnannounced(t, { status: 'stored', result: { sequence: 0 } });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal((res.json() as { status: string }).status, 'ok', res.body);
});

test('a held write whose outcome row says it failed answers with that error, not 202', async (t) => {
  const res = await heldWriteOutcomeUnannounced(t, {
    status: 'failed',
    error_code: 'FORBIDDEN',
    error_message: 'not a member of group g',
  });
  assertEnvelope(res, 403, 'FORBIDDEN', /not a member/, '/api/v1/memories', 'failed outcome');
});

test('a closed broker connection answers 503 with Retry-After and no internals', async (t) => {
  const { server, bus } = await gateway(t);
  await bus.close(); // a real bus that refuses to publish, as a broker that is down does
  const res = await server.inject({ method: 'POST', url: '/api/v1/memories', payload: valid });
  assertEnvelope(res, 503, 'DEPENDENCY_UNAVAILABLE', /broker unavailable/, '/api/v1/memories', 'broker down');
  assert.equal(res.headers['retry-after'], '5');
  assert.doesNotMatch(res.body, /bus is closed/);
});

test('past its in-flight limit the gateway sheds load with 503 OVERLOADED', async (t) => {
  const { server, published } = await gateway(t, { syncTimeoutMs: 1000, maxInFlight: 1 });
  const held = server.inject({ method: 'POST', url: '/api/v1/memories', payload: valid });
  // it holds the one slot from before it publishes until it answers
  await waitFor('the held request published', async () => published.length === 1);
  const shed = await server.inject({
    method: 'POST',
    url: '/api/v1/memories',
    payload: { ...valid, message_id: 'm2' },
  });
  assertEnvelope(shed, 503, 'OVERLOADED', /overloaded/, '/api/v1/memories', 'overloaded');
  assert.equal(shed.headers['retry-after'], '5');
  assert.equal((await held).statusCode, 202, 'the held request still gets its answer');
});

test('an event larger than the broker takes is refused with 413', async (t) => {
  const { server, published } = await gateway(t, { maxEventBytes: 2048 });
  const res = await server.inject({
    method: 'POST',
    url: '/api/v1/memories',
    payload: { ...valid, content: 'x'.repeat(4096) },
  });
  assertEnvelope(res, 413, 'PAYLOAD_TOO_LARGE', /too large/, '/api/v1/memories', 'too large');
  assert.equal(published.length, 0);
});
