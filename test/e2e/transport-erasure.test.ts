import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import kafkajs, { Kafka, logLevel } from 'kafkajs';
import {
  COPIED_FROM_HEADER,
  MemoryBus,
  eraseTransportCopies,
  type Bus,
  type BusRecord,
  type Subscription,
} from '@memstream/bus';
import { createFanout, createRequestLedger } from '@memstream/fanout';
import { LOCAL_PRINCIPAL } from '@memstream/auth';
import { startWriter } from '@memstream/ingest';
import { createLogger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { RETENTION_MS, SEGMENT_MS, TOPICS, allTopics, consumerGroup } from '@memstream/schemas';
import { PgStore, findRequestOutcome, listMessages, migrate, storeBusJournal } from '@memstream/store';
import { startConverter } from '@memstream/converter';
import { freshDatabase, infra, uniqueName, waitFor } from '../helpers/infra.js';
import { carries, readBusFromZero, readKafkaFromZero, where } from '../helpers/read-from-zero.js';
import { testKafkaBus } from '../helpers/kafka-bus.js';

// After a person is erased, a reader that starts every topic (and the embedded journal) at offset 0
// finds nothing of theirs: not what they wrote through the API or straight onto an input topic,
// not what the pipeline made of it, not their dead letters. Another person's dead letters survive;
// the consumed prefix of every other topic is gone for everyone (see docs/kafka-topics.md#erasure).

const log = createLogger({ service: 'test', level: 'silent' });
const INPUTS = [TOPICS.groupChatInput, TOPICS.arkMessages, TOPICS.conversationInput];
const EVERY_TOPIC = allTopics().map((t) => t.name);
const DEAD_LETTERS = Object.values(TOPICS).map((t) => t.dlq);

interface World {
  readonly bus: Bus;
  readonly store: PgStore;
  /** Writes a raw record onto a topic the way a producer other than ours would. */
  readonly produce: (topic: string, key: string, value: string) => Promise<void>;
  /** Every record of every topic, read from offset 0 by a reader that never read them before. */
  readonly readAll: () => Promise<BusRecord[]>;
  /** The same records, read without leaving a consumer group behind (which would let the embedded bus trim). */
  readonly peek: () => Promise<BusRecord[]>;
  readonly afterErasure?: () => Promise<void>;
}

test('kafka: an erased person is on no topic read from offset 0; others keep their dead letters', async (t) => {
  const { bus, prefix } = testKafkaBus(t, 'erasure', log);
  const kafka = new Kafka({ brokers: infra().kafkaBrokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  t.after(() => producer.disconnect());
  const world: World = {
    bus,
    store: await migratedStore(t),
    produce: async (topic, key, value) => {
      await producer.send({ topic: `${prefix}${topic}`, messages: [{ key, value }] });
    },
    readAll: () => readKafkaFromZero(kafka, prefix, EVERY_TOPIC),
    peek: () => readKafkaFromZero(kafka, prefix, EVERY_TOPIC),
  };
  await eraseOneOfTwo(t, world);

  // Retention is the catalogue's, not the broker's default.
  const admin = kafka.admin();
  await admin.connect();
  t.after(() => admin.disconnect());
  const described = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [TOPICS.groupChatInput.name, TOPICS.groupChatInput.dlq].map((name) => ({
      type: kafkajs.ConfigResourceTypes.TOPIC, // not a named export Node's ESM loader finds in kafkajs
      name: `${prefix}${name}`,
    })),
  });
  const configOf = (i: number, name: string) =>
    described.resources[i]!.configEntries.find((e) => e.configName === name)?.configValue;
  assert.equal(configOf(0, 'retention.ms'), String(RETENTION_MS.consumed));
  assert.equal(configOf(1, 'retention.ms'), String(RETENTION_MS.deadLetters));
  assert.equal(configOf(0, 'segment.ms'), String(SEGMENT_MS));
});

test('embedded: an erased person is in no journal row and on no topic of the in-process bus', async (t) => {
  const store = await migratedStore(t);
  const journal = storeBusJournal(store);
  const bus = new MemoryBus(log, 2, new Metrics(), { journal, commitIntervalMs: 20 });
  t.after(() => bus.close());
  const world: World = {
    bus,
    store,
    produce: (topic, key, value) => bus.publish(topic, [{ key, value }]),
    readAll: () => readBusFromZero(bus, EVERY_TOPIC),
    peek: async () =>
      (await Promise.all(EVERY_TOPIC.map(async (topic) => bus.scan(topic, await bus.ranges(topic))))).flat(),
    // Right after the erasure: the test's own readers, once they passed the dead letters, let the
    // bus trim them from the journal, as it trims whatever every group has passed.
    afterErasure: async () => {
      const rows = await store.query<{ topic: string; key: string | null; value: Buffer; headers: object }>(
        'SELECT topic, key, value, headers FROM bus_journal',
      );
      const text = rows.rows.map((r) => `${r.topic} ${r.key} ${r.value.toString('utf8')} ${JSON.stringify(r.headers)}`);
      assert.deepEqual(
        text.filter((row) => row.includes(MARK.alice)),
        [],
        'no journal row holds the erased person',
      );
      assert.ok(
        text.some((row) => row.includes(MARK.bob) && row.startsWith(TOPICS.groupChatInput.dlq)),
        "the other person's dead letter is still in the journal",
      );
    },
  };
  await eraseOneOfTwo(t, world);

  // A bus started again on the journal (after a crash, say) has nothing of theirs either.
  await bus.close();
  const again = new MemoryBus(log, 2, new Metrics(), { journal });
  t.after(() => again.close());
  const reread = await readBusFromZero(again, EVERY_TOPIC);
  assert.deepEqual(reread.filter(carries(MARK.alice)).map(where), []);
});

const MARK = { alice: `alicemark${randomUUID().slice(0, 8)}`, bob: `bobmark${randomUUID().slice(0, 8)}` };

async function eraseOneOfTwo(t: TestContext, world: World): Promise<void> {
  const { bus, store } = world;
  await bus.ensureTopics(allTopics());
  const fanout = createFanout(bus.kind === 'kafka' ? infra().redisUrl : undefined, log);
  t.after(() => fanout.close());
  const ledger = createRequestLedger(bus.kind === 'kafka' ? infra().redisUrl : undefined, 600, log);
  t.after(() => ledger.close());
  const converterGroup = uniqueName('converter');
  // The consumers of the derived topics, as far as their positions go: the erasure waits for them.
  const downstream = { stored: uniqueName('downstream'), memories: '' };
  downstream.memories = consumerGroup('memoriesExtracted', 'indexer', downstream.stored);
  const subscriptions: Subscription[] = await startConverter({
    bus,
    store,
    fanout,
    log,
    groupId: converterGroup,
    retry: { maxAttempts: 2, initialDelayMs: 10, maxDelayMs: 50 },
    partitionsConcurrently: 2,
    maxBatchSize: 100,
    metaCacheMs: 10_000,
    rules: { maxMessages: 50, maxTokens: 8192, silenceMs: 3_600_000 },
  });
  for (const [topic, groupId] of [
    [TOPICS.messagesStored, downstream.stored],
    [TOPICS.memoriesExtracted, downstream.memories],
  ] as const) {
    subscriptions.push(
      await bus.subscribe({
        groupId,
        topic: topic.name,
        dlqTopic: topic.dlq,
        retry: { maxAttempts: 1, initialDelayMs: 10, maxDelayMs: 10 },
        handler: async () => undefined,
      }),
    );
  }
  t.after(() => Promise.all(subscriptions.map((s) => s.stop())));
  const { write, stop } = await startWriter({
    bus,
    fanout,
    ledger,
    lookup: (requestId) => findRequestOutcome(store, requestId),
    settings: { syncTimeoutMs: 15_000, maxInFlight: 100, maxEventBytes: 1_000_000 },
    log: { warn: () => undefined },
  });
  t.after(stop);

  const group = uniqueName('chat');
  const at = new Date().toISOString();
  const message = (sender: 'alice' | 'bob', n: number) => ({
    group_id: group,
    message_id: `${sender}-${n}`,
    create_time: '2025-03-01T09:00:00Z',
    sender,
    content: `${MARK[sender]} says hello ${n}`,
  });
  // Through the API's write path, each answered once the converter stored it.
  for (const sender of ['alice', 'bob'] as const) {
    const origin = { correlationId: randomUUID(), principal: LOCAL_PRINCIPAL, log: { warn: () => undefined } };
    const result = await write(
      origin,
      TOPICS.groupChatInput,
      { type: 'group_chat.message.received', source: 'evermemos', data: message(sender, 1) },
      true,
    );
    assert.equal(result.kind, 'done');
  }
  // Straight onto every input topic: a valid message, and a poison record carrying the marker
  // that the converter dead-letters; the same for the other person.
  for (const sender of ['alice', 'bob'] as const) {
    const envelope = (type: string, data: object) =>
      JSON.stringify({ id: randomUUID(), type, occurred_at: at, source: 'third-party', data });
    await world.produce(TOPICS.groupChatInput.name, group, envelope('group_chat.message.received', message(sender, 2)));
    await world.produce(
      TOPICS.groupChatInput.name,
      group,
      envelope('group_chat.message.received', { group_id: group, sender, content: `${MARK[sender]} broken` }),
    );
    await world.produce(TOPICS.arkMessages.name, `s-${sender}`, `{"not json, from ${sender}: ${MARK[sender]}`);
    await world.produce(
      TOPICS.conversationInput.name,
      group,
      envelope('conversation.messages.appended', { group_id: group, user_id: sender, text: MARK[sender] }),
    );
    // what extraction publishes (the memory quotes the person)
    await world.produce(
      TOPICS.memoriesExtracted.name,
      group,
      envelope('memory.episodic.extracted', { conversation_id: group, content: `${sender} said ${MARK[sender]}` }),
    );
  }
  await waitFor('both direct messages stored', async () => {
    const page = await listMessages(store, { conversationId: group, limit: 10, offset: 0, order: 'oldest-first' });
    return page.items.length === 4;
  });

  // Before: the reader finds the person on the input, derived and dead-letter topics (so the
  // checks below can fail).
  const before = await world.peek();
  for (const topic of [...INPUTS.map((i) => i.name), TOPICS.messagesStored.name, TOPICS.memoriesExtracted.name]) {
    assert.ok(
      before.some((r) => r.topic === topic && carries(MARK.alice)(r)),
      `alice is on ${topic} before`,
    );
  }
  for (const input of INPUTS) {
    assert.ok(
      before.some((r) => r.topic === input.dlq && carries(MARK.alice)(r)),
      `alice is on ${input.dlq} before`,
    );
  }

  const counts = await eraseTransportCopies({
    bus,
    userId: 'alice',
    consumed: [
      { topic: TOPICS.groupChatInput.name, groupIds: [consumerGroup('groupChatInput', 'converter', converterGroup)] },
      { topic: TOPICS.arkMessages.name, groupIds: [consumerGroup('arkMessages', 'converter', converterGroup)] },
      {
        topic: TOPICS.conversationInput.name,
        groupIds: [consumerGroup('conversationInput', 'converter', converterGroup)],
      },
      { topic: TOPICS.messagesStored.name, groupIds: [downstream.stored] },
      { topic: TOPICS.memoriesExtracted.name, groupIds: [downstream.memories] },
    ],
    deadLetters: DEAD_LETTERS,
  });
  assert.equal(counts.deadLettersRemoved[TOPICS.groupChatInput.dlq], 1);
  assert.equal(counts.deadLettersKept[TOPICS.groupChatInput.dlq], 1);
  await world.afterErasure?.();

  const after = await world.readAll();
  assert.deepEqual(after.filter(carries(MARK.alice)).map(where), [], 'nothing of the erased person is left');
  // Other people's dead letters are still there, rewritten past the cut and saying where from.
  for (const input of INPUTS) {
    const kept = after.filter((r) => r.topic === input.dlq && carries(MARK.bob)(r));
    assert.equal(kept.length, 1, `bob's dead letter on ${input.dlq}`);
    assert.ok(kept[0]!.headers[COPIED_FROM_HEADER]);
  }
  // The consumed prefix went for everyone: what a reader from 0 sees of a consumed topic is only
  // what was published after the cut. The tables still hold the other person's messages.
  assert.deepEqual(
    after.filter((r) => !r.topic.endsWith('.dlq')).map(where),
    [],
    'every consumed topic starts after the cut',
  );
  const page = await listMessages(store, { conversationId: group, limit: 10, offset: 0, order: 'oldest-first' });
  assert.equal(page.items.filter((m) => m.content.includes(MARK.bob)).length, 2);

  // A second run finds nothing more and duplicates no one's dead letter.
  const second = await eraseTransportCopies({
    bus,
    userId: 'alice',
    consumed: [],
    deadLetters: DEAD_LETTERS,
  });
  assert.deepEqual(
    Object.values(second.deadLettersKept),
    DEAD_LETTERS.map(() => 0),
  );
  const origin = { correlationId: randomUUID(), principal: LOCAL_PRINCIPAL, log: { warn: () => undefined } };
  await write(
    origin,
    TOPICS.groupChatInput,
    { type: 'group_chat.message.received', source: 'evermemos', data: message('bob', 3) },
    true,
  );
  const later = await world.readAll();
  assert.ok(
    later.some(
      (r) => r.topic === TOPICS.groupChatInput.name && r.value.toString().includes(`${MARK.bob} says hello 3`),
    ),
    'a write after the erasure reads back from offset 0',
  );
}

async function migratedStore(t: TestContext): Promise<PgStore> {
  const store = new PgStore({
    connectionString: await freshDatabase(t),
    maxConnections: 4,
    statementTimeoutMs: 10_000,
    log,
  });
  t.after(() => store.close());
  await migrate(store, log);
  return store;
}
