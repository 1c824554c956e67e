import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { freshDatabase, infra, uniqueName, waitFor, kafkaTopicPrefix } from '../helpers/infra.js';
import { consumerLag } from '../helpers/consumer-lag.js';
import { restartServing, startServing, type RunningProcess } from '../../harness/processes.js';

const TOTAL = 8_000;
const GROUPS = 25;
const CONCURRENCY = 32;

// The converter dies without warning (SIGKILL: no drain, no commit) twice while 8,000 messages
// pour in (at a fifth and at half of them, each time with batches in flight). Kafka redelivers what it had not committed; the store's idempotency keys absorb it.
test('8,000 messages with the converter SIGKILLed twice: each stored once, sequences gap-free', async (t: TestContext) => {
  const databaseUrl = await freshDatabase(t);
  const shared = {
    KAFKA_BROKERS: infra().kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: kafkaTopicPrefix('noloss'),
    DATABASE_URL: databaseUrl,
    REDIS_URL: infra().redisUrl,
    CONVERTER_GROUP_ID: uniqueName('converter'),
    LOG_LEVEL: 'warn',
  };
  const [{ base: gateway }, first] = await Promise.all([
    startServing(t, 'services/api/src/main-gateway.ts', { ...shared, REQUEST_SYNC_TIMEOUT_MS: '1000' }),
    startServing(t, 'services/converter/src/main.ts', shared),
  ]);
  let converter: RunningProcess = first.proc;

  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  // The database is dropped WITH (FORCE) when the test ends, which kills this connection.
  db.on('error', () => undefined);
  t.after(() => db.end());
  const storedCount = async () =>
    Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM messages')).rows[0]!.n);

  // The load: every tenth call waits for the store (sync), the rest answer on the broker's ack.
  let next = 0;
  let refused = 0;
  const send = async () => {
    while (next < TOTAL) {
      const i = next++;
      const body = JSON.stringify({
        group_id: `g${i % GROUPS}`,
        message_id: `m${i}`,
        create_time: new Date(Date.UTC(2025, 0, 1, 0, 0, 0, i)).toISOString(),
        sender: `u${i % 7}`,
        content: `message number ${i}`,
      });
      for (let attempt = 0; ; attempt++) {
        const res = await fetch(`${gateway}/api/v1/memories${i % 10 === 0 ? '' : '?sync_mode=false'}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        await res.arrayBuffer();
        if (res.status === 200 || res.status === 202) break;
        refused++; // a 503 is the gateway asking for a retry, which a client does
        assert.ok(attempt < 20 && res.status === 503, `unexpected ${res.status}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  const load = Promise.all(Array.from({ length: CONCURRENCY }, send));

  for (const threshold of [TOTAL * 0.2, TOTAL * 0.5]) {
    await waitFor(`${threshold} stored`, async () => (await storedCount()) >= threshold, 120_000);
    converter.child.kill('SIGKILL');
    await converter.exited;
    converter = await restartServing(t, 'services/converter/src/main.ts', shared, first.base);
  }
  await load;
  await waitFor('every message stored', async () => (await storedCount()) >= TOTAL, 180_000);
  // Once the converter has committed everything, no redelivery is left to (not) add rows.
  await waitFor(
    'the converter committed every record',
    async () => (await consumerLag(shared.KAFKA_BROKERS, shared.KAFKA_TOPIC_PREFIX)) === 0,
    60_000,
  );

  const totals = await db.query<{ rows: string; distinct_ids: string }>(
    'SELECT count(*) AS rows, count(DISTINCT (conversation_id, message_id)) AS distinct_ids FROM messages',
  );
  assert.equal(Number(totals.rows[0]!.rows), TOTAL, 'exactly one row per message');
  assert.equal(Number(totals.rows[0]!.distinct_ids), TOTAL);
  const gaps = await db.query<{ conversation_id: string; n: string; lo: string; hi: string }>(
    `SELECT conversation_id, count(*) AS n, min(seq) AS lo, max(seq) AS hi FROM messages GROUP BY conversation_id
     HAVING min(seq) <> 0 OR max(seq) <> count(*) - 1`,
  );
  assert.deepEqual(gaps.rows, [], 'sequence numbers start at 0 and have no gaps in every conversation');
  const groups = await db.query<{ n: string }>('SELECT count(DISTINCT conversation_id) AS n FROM messages');
  assert.equal(Number(groups.rows[0]!.n), GROUPS);
  t.diagnostic(`gateway asked for ${refused} retries`);
});
