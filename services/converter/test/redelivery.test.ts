import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { publishEvents } from '@memstream/bus';
import { RedisFanout } from '@memstream/fanout';
import { createLogger } from '@memstream/logging';
import { TOPICS, allTopics, type GroupChatMessageReceived } from '@memstream/schemas';
import { PgStore, listMessages, migrate } from '@memstream/store';
import { startConverter } from '@memstream/converter';
import { freshDatabase, infra, uniqueName, waitFor } from '../../../test/helpers/infra.js';
import { captureLogger } from '../../../test/helpers/logger.js';
import { testKafkaBus } from '../../../test/helpers/kafka-bus.js';

test('a message redelivered by Kafka leaves one row', async (t) => {
  const silent = createLogger({ service: 'test', level: 'silent' });
  const store = new PgStore({
    connectionString: await freshDatabase(t),
    maxConnections: 4,
    statementTimeoutMs: 10_000,
    log: silent,
  });
  t.after(() => store.close());
  await migrate(store, silent);
  const { log, lines } = captureLogger();
  const { bus, prefix } = testKafkaBus(t, 'redeliver', log);
  await bus.ensureTopics(allTopics());
  const fanout = new RedisFanout(infra().redisUrl, silent);
  t.after(() => fanout.close());

  const groupId = uniqueName('converter');
  const retry = { maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 100 };
  const event: GroupChatMessageReceived = {
    id: randomUUID(),
    type: 'group_chat.message.received',
    occurred_at: new Date().toISOString(),
    data: {
      group_id: 'g1',
      message_id: 'm1',
      create_time: '2025-01-15T10:00:00+08:00',
      sender: 'u1',
      content: 'hello',
    },
  };
  let subs = await startConverter({
    bus,
    store,
    fanout,
    log,
    groupId,
    retry,
    partitionsConcurrently: 2,
    maxBatchSize: 100,
    metaCacheMs: 10_000,
    rules: { maxMessages: 50, maxTokens: 8192, silenceMs: 3_600_000 },
  });
  await publishEvents(bus, TOPICS.groupChatInput, [event]);
  const batches = () => lines().filter((l) => l['msg'] === 'group-chat batch stored');
  await waitFor('the first delivery stored the message', async () => batches().some((l) => l['stored'] === 1));
  await Promise.all(subs.map((s) => s.stop()));

  // Rewind the group, as a consumer that crashed before committing would be rewound.
  const admin = new Kafka({ brokers: infra().kafkaBrokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  // the group's id on the broker carries the prefix, as the topic's does
  await admin.resetOffsets({
    groupId: `${prefix}${groupId}`,
    topic: `${prefix}${TOPICS.groupChatInput.name}`,
    earliest: true,
  });
  await admin.disconnect();

  subs = await startConverter({
    bus,
    store,
    fanout,
    log,
    groupId,
    retry,
    partitionsConcurrently: 2,
    maxBatchSize: 100,
    metaCacheMs: 10_000,
    rules: { maxMessages: 50, maxTokens: 8192, silenceMs: 3_600_000 },
  });
  await waitFor('the redelivery', async () => batches().some((l) => l['duplicates'] === 1));
  await Promise.all(subs.map((s) => s.stop()));

  const page = await listMessages(store, { conversationId: 'g1', limit: 10, offset: 0, order: 'oldest-first' });
  assert.equal(page.total, 1);
  assert.equal(page.items[0]!.seq, 0);
  assert.equal(
    batches().filter((l) => l['stored'] === 1).length,
    1,
    'stored once, found as a duplicate the second time',
  );
});
