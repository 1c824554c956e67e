import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase, infra, uniqueName, waitFor, kafkaTopicPrefix } from '../helpers/infra.js';
import { embeddedMemstream } from '../helpers/embedded.js';
import { freePort, launch, listensOn } from '../../harness/processes.js';
import { call } from '../helpers/evermemos-client.js';
import { startApi, startServices } from '../helpers/distributed.js';
import { checkArkContract } from './ark-contract.js';
import { contents, openSse } from '../../harness/sse-client.js';
import { appendMessages, appendStreamChunks, PgStore } from '@memstream/store';
import { createLogger } from '@memstream/logging';

const log = createLogger({ service: 'ark-api-test', level: 'silent' });

/**
 * A Redis of the test's own, once it listens on its port itself: a port freePort handed out may
 * be taken by another test's server first, and then another port is tried.
 */
async function ownRedis(t: TestContext): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const redis = launch(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {},
    );
    t.after(() => redis.crash());
    let exited = false;
    void redis.exited.then(() => (exited = true));
    const state = await waitFor(`redis-server listening on ${port}`, async () =>
      exited ? 'exited' : listensOn(redis.pid, port) && 'listening',
    );
    if (state === 'listening') return `redis://127.0.0.1:${port}`;
    if (attempt === 3) throw new Error(`redis-server exited:\n${redis.tail()}`);
  }
}

/** Writes one EverMemOS message of `group` (sender ann, one fixed time), held until stored. */
function groupWriter(base: string, group: string) {
  return (id: string, content: string) =>
    call(base, 'POST', '/api/v1/memories', {
      group_id: group,
      message_id: id,
      create_time: '2025-01-15T10:00:00Z',
      sender: 'ann',
      content,
    });
}

test('embedded mode: ARK memory API, streams and completion; ARK sessions get summaries', async (t: TestContext) => {
  const base = await embeddedMemstream(t, { SUMMARY_SWEEP_INTERVAL_MS: '200' });
  const prefix = uniqueName('ark');
  await checkArkContract([base], prefix);
  const summaries = await waitFor('the summarizer summarized the ARK session', async () => {
    const res = await call<{ summaries: Array<{ status: string }> }>(
      base,
      'GET',
      `/api/v1/summaries?conversation_id=${prefix}-s1`,
    );
    return res.body.summaries?.some((s) => s.status === 'completed') ? res.body.summaries : undefined;
  });
  assert.ok(summaries.length > 0);
  const big = await fetch(`${base}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: 'big', messages: [{ role: 'user', content: 'x'.repeat(11 * 1024 * 1024) }] }),
  });
  assert.equal(big.status, 413, 'past the 10 MB default body limit');
});

test("embedded mode: a group's EverMemOS message reaches an ARK stream of the group live, not at its next heartbeat", async (t: TestContext) => {
  // A heartbeat of a minute: only the live event can bring the message within the wait below.
  const base = await embeddedMemstream(t, { SSE_HEARTBEAT_MS: '60000' });
  const group = uniqueName('live-group');
  const evermemos = groupWriter(base, group);
  assert.equal((await evermemos('m1', 'before the stream')).status, 200);
  const stream = await openSse(`${base}/stream/${group}`);
  t.after(() => stream.close());
  assert.equal(stream.status, 200);
  const sent = Date.now();
  assert.equal((await evermemos('m2', 'while it is open')).status, 200);
  await waitFor(
    'the EverMemOS message streamed',
    async () => (contents(stream).includes('while it is open') ? true : undefined),
    10_000,
  );
  t.diagnostic(`EverMemOS write to ARK stream frame: ${Date.now() - sent} ms`);
  assert.deepEqual(contents(stream), ['while it is open']);
});

test('embedded mode: a live message after one the live channel lost makes the stream read the store first, so nothing is skipped', async (t: TestContext) => {
  // A heartbeat of a minute: only the live event of the third message can bring the second.
  const databaseUrl = await freshDatabase(t);
  const base = await embeddedMemstream(t, { SSE_HEARTBEAT_MS: '60000', DATABASE_URL: databaseUrl });
  const group = uniqueName('lost-live');
  const evermemos = groupWriter(base, group);
  assert.equal((await evermemos('m1', 'before the stream')).status, 200);
  const stream = await openSse(`${base}/stream/${group}`);
  t.after(() => stream.close());
  assert.equal(stream.status, 200);
  // The second is stored with no live event, as when Redis was down while it was published.
  const store = new PgStore({ connectionString: databaseUrl, maxConnections: 1, statementTimeoutMs: 10_000, log });
  t.after(() => store.close());
  await appendMessages(store, [
    {
      message: {
        conversation_id: group,
        message_id: 'm2',
        sender_id: 'ann',
        sender_name: 'ann',
        role: 'user',
        content: 'second, never announced',
        created_at: new Date('2025-01-15T10:00:01Z'),
        refer_list: [],
        metadata: {},
        source_api: 'evermemos',
      },
    },
  ]);
  assert.equal((await evermemos('m3', 'third')).status, 200);
  await waitFor('the third message streamed', async () => (contents(stream).includes('third') ? true : undefined));
  assert.deepEqual(contents(stream), ['second, never announced', 'third']);
});

test('embedded mode: a live chunk after one the live channel lost makes the stream read the kept chunks first', async (t: TestContext) => {
  // A heartbeat of a minute: only the live event of the third chunk can bring the second.
  const databaseUrl = await freshDatabase(t);
  const base = await embeddedMemstream(t, { SSE_HEARTBEAT_MS: '60000', DATABASE_URL: databaseUrl });
  const session = uniqueName('lost-chunk');
  const chunk = (token: string) => ({
    id: session,
    object: 'chat.completion.chunk',
    model: 'agent',
    choices: [{ index: 0, delta: { content: token } }],
  });
  const relay = async (token: string) =>
    (
      await fetch(`${base}/stream/${session}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: JSON.stringify(chunk(token)),
      })
    ).status;
  assert.equal(await relay('tok1'), 200);
  const stream = await openSse(`${base}/stream/${session}`);
  t.after(() => stream.close());
  assert.equal(stream.status, 200);
  // Kept with no live event, as when Redis was down while it was published. Another session's
  // chunk comes between, so the numbers alone would show no gap.
  const store = new PgStore({ connectionString: databaseUrl, maxConnections: 1, statementTimeoutMs: 10_000, log });
  t.after(() => store.close());
  await appendStreamChunks(store, session, [chunk('tok2')]);
  await appendStreamChunks(store, `${session}-other`, [chunk('elsewhere')]);
  assert.equal(await relay('tok3'), 200);
  await waitFor('the third chunk streamed', async () => (contents(stream).includes('tok3') ? true : undefined));
  assert.deepEqual(contents(stream), ['tok2', 'tok3']);
});

test("distributed mode: with the live notices lost, a stream's catch-up delivers what follows a gap a deletion left in the numbering", async (t: TestContext) => {
  // The read API listens on a Redis of its own: the converter's live events never reach it, so
  // only the heartbeat's catch-up (which reads by sequence number, after the last one sent) can.
  const readRedis = await ownRedis(t);
  const shared = {
    KAFKA_BROKERS: infra().kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: kafkaTopicPrefix('gap'),
    DATABASE_URL: await freshDatabase(t),
    REDIS_URL: infra().redisUrl,
    CONVERTER_GROUP_ID: uniqueName('converter'),
  };
  const [gateway, , readApi] = (await startServices(
    t,
    shared,
    ['ingest-gateway', 'converter', 'read-api'],
    [{}, {}, { REDIS_URL: readRedis, SSE_HEARTBEAT_MS: '100' }],
  )) as [string, string, string];

  const session = uniqueName('gap');
  const evermemos = groupWriter(gateway, session);
  for (const [id, content] of [
    ['m1', 'first'],
    ['m2', 'second'],
    ['m3', 'third'],
  ] as const)
    assert.equal((await evermemos(id, content)).status, 200);
  // A deletion is a write, the gateway's; done (200) or, past its wait, accepted (202) and done soon after.
  assert.ok(
    [200, 202].includes((await call(gateway, 'DELETE', `/api/v1/memories?group_id=${session}&message_id=m1`)).status),
  );
  await waitFor(
    'm1 deleted',
    async () =>
      (await call<{ result: { total_count: number } }>(readApi, 'GET', `/api/v1/memories?group_id=${session}`)).body
        .result.total_count === 2,
    30_000,
  );

  const stream = await openSse(`${readApi}/stream/${session}`);
  t.after(() => stream.close());
  assert.equal(stream.status, 200);
  assert.equal((await evermemos('m4', 'after the gap')).status, 200);
  await waitFor(
    'the message after the gap streamed',
    async () => (contents(stream).includes('after the gap') ? true : undefined),
    20_000,
  );
  assert.deepEqual(contents(stream), ['after the gap'], 'nothing stored before the stream opened is sent again');
});

test('distributed mode: ARK API on two API replicas, live delivery across them through Redis', async (t: TestContext) => {
  const shared = {
    KAFKA_BROKERS: infra().kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: kafkaTopicPrefix('ark'),
    DATABASE_URL: await freshDatabase(t),
    REDIS_URL: infra().redisUrl,
    CONVERTER_GROUP_ID: uniqueName('converter'),
  };
  await startServices(t, shared, ['converter']);
  // two replicas of the API (a gateway and a read API behind an edge), ARK's writes on one streamed from the other
  const bases = await startApi(t, shared, 2);
  await checkArkContract(bases, uniqueName('ark'));
});
