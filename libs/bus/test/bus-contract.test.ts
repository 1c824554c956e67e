import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { AppError } from '@memstream/errors';
import { createLogger } from '@memstream/logging';
import {
  CORRELATION_HEADER,
  DLQ_HEADERS,
  KafkaBus,
  MemoryBus,
  consumerLag,
  subscribeEvents,
  type Bus,
  type BusRecord,
} from '@memstream/bus';
import { Metrics } from '@memstream/metrics';
import { deleteTopics, infra, uniqueName, waitFor } from '../../../test/helpers/infra.js';
import { samplesOf, series, total } from '../../../test/helpers/prometheus.js';
import { pgJournal } from './pg-journal.js';

const log = createLogger({ service: 'test', level: 'silent' });
const fastRetry = { maxAttempts: 4, initialDelayMs: 10, maxDelayMs: 50 };

// The same guarantees, checked against both implementations: the embedded mode must not behave
// differently from Kafka.
const implementations: Array<[string, (metrics: Metrics, t: TestContext) => Bus | Promise<Bus>]> = [
  ['in-process bus', (metrics) => new MemoryBus(log, 4, metrics)],
  [
    'journaled in-process bus',
    async (metrics, t) =>
      new MemoryBus(log, 4, metrics, { journal: (await pgJournal(t)).journal, commitIntervalMs: 20 }),
  ],
  [
    'Kafka bus',
    (metrics) =>
      new KafkaBus({
        brokers: infra().kafkaBrokers,
        clientId: 'bus-contract-test',
        log,
        defaultPartitions: 4,
        replicationFactor: 1,
        requestTimeoutMs: 30_000,
        commitIntervalMs: 100,
        metrics,
      }),
  ],
];

async function openBus(
  t: TestContext,
  make: (metrics: Metrics, t: TestContext) => Bus | Promise<Bus>,
  topics: string[],
  metrics = new Metrics(),
): Promise<Bus> {
  let bus: Bus | undefined;
  // Registered before make's own teardown (a journal's database), so it runs first.
  t.after(() => bus?.close());
  bus = await make(metrics, t);
  if (bus.kind === 'kafka')
    t.after(() => deleteTopics((name) => topics.some((topic) => name === topic || name.startsWith(`${topic}.`))));
  await bus.ensureTopics(topics.map((name) => ({ name })));
  return bus;
}

/** Reads a dead-letter topic with a group of its own, as an operator's tool would. */
async function collectDeadLetters(bus: Bus, dlqTopic: string): Promise<BusRecord[]> {
  const dead: BusRecord[] = [];
  await bus.subscribe({
    groupId: uniqueName('dlq-reader'),
    topic: dlqTopic,
    dlqTopic: `${dlqTopic}.dlq`,
    retry: fastRetry,
    handler: async (r) => void dead.push(r),
  });
  return dead;
}

function record(key: string, value: unknown) {
  return { key, value: JSON.stringify(value) };
}

for (const [name, make] of implementations) {
  test(`${name}: records with one key are handled in the order they were published`, async (t) => {
    const topic = uniqueName('order');
    const bus = await openBus(t, make, [topic, `${topic}.dlq`]);
    const seen: Record<string, number[]> = { a: [], b: [] };
    await bus.subscribe({
      groupId: uniqueName('g'),
      topic,
      dlqTopic: `${topic}.dlq`,
      retry: fastRetry,
      partitionsConcurrently: 4,
      handler: async (r) => {
        const { key, n } = JSON.parse(r.value.toString()) as { key: string; n: number };
        seen[key]!.push(n);
      },
    });
    for (let n = 0; n < 30; n++) await bus.publish(topic, [record('a', { key: 'a', n }), record('b', { key: 'b', n })]);
    await waitFor('60 records', async () => seen['a']!.length + seen['b']!.length === 60);
    const expected = Array.from({ length: 30 }, (_, i) => i);
    assert.deepEqual(seen['a'], expected);
    assert.deepEqual(seen['b'], expected);
  });

  test(`${name}: a partition held up in its handler does not hold up the next batch of the others`, async (t) => {
    const topic = uniqueName('hol');
    const bus = await openBus(t, make, [topic, `${topic}.dlq`]);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    t.after(() => release());
    let stuckPartition: number | undefined;
    const handled: Array<{ key: string; partition: number }> = [];
    await bus.subscribe({
      groupId: uniqueName('g'),
      topic,
      dlqTopic: `${topic}.dlq`,
      retry: fastRetry,
      partitionsConcurrently: 4,
      handler: async (r) => {
        if (r.key === 'stuck') {
          stuckPartition = r.partition;
          await released;
        }
        handled.push({ key: r.key ?? '', partition: r.partition });
      },
    });
    await bus.publish(topic, [record('stuck', 0)]);
    await waitFor('the stuck record in its handler', async () => stuckPartition !== undefined);
    // Published only now, so they come in fetches after the one holding the stuck record. Twenty
    // keys over four partitions: some land beside the stuck one, most elsewhere.
    const later = Array.from({ length: 20 }, (_, i) => `later-${i}`);
    await bus.publish(
      topic,
      later.map((key) => record(key, 1)),
    );
    try {
      await waitFor('records of the other partitions handled while one is stuck', async () =>
        handled.some((h) => h.key.startsWith('later-') && h.partition !== stuckPartition),
      );
      assert.ok(
        handled.every((h) => h.partition !== stuckPartition),
        'nothing of the stuck partition overtook it',
      );
    } finally {
      release(); // before the teardown stops the bus, which waits for the handler in flight
    }
    await waitFor('everything handled once released', async () => handled.length === 21);
    const order = handled.filter((h) => h.partition === stuckPartition).map((h) => h.key);
    assert.equal(order[0], 'stuck', 'the stuck partition kept its order');
  });

  test(`${name}: a non-retriable handler error dead-letters the record with its reason and the consumer goes on`, async (t) => {
    const topic = uniqueName('dlq');
    const bus = await openBus(t, make, [topic, `${topic}.dlq`]);
    const handled: string[] = [];
    let poisonAttempts = 0;
    const groupId = uniqueName('g');
    await bus.subscribe({
      groupId,
      topic,
      dlqTopic: `${topic}.dlq`,
      retry: fastRetry,
      handler: async (r) => {
        const { id } = JSON.parse(r.value.toString()) as { id: string };
        if (id === 'poison') {
          poisonAttempts++;
          throw new AppError('INVALID_EVENT', 'content is not a greeting');
        }
        handled.push(id);
      },
    });
    const dead = await collectDeadLetters(bus, `${topic}.dlq`);
    await bus.publish(topic, [
      record('k', { id: 'first' }),
      record('k', { id: 'poison' }),
      record('k', { id: 'after' }),
    ]);
    await waitFor('the record after the poison', async () => handled.includes('after'));
    await waitFor('the dead-lettered record', async () => dead.length === 1);
    assert.deepEqual(handled, ['first', 'after']);
    assert.equal(poisonAttempts, 1, 'a non-retriable error is not retried');
    const headers = dead[0]!.headers;
    assert.equal(headers[DLQ_HEADERS.reason], 'content is not a greeting');
    assert.equal(headers[DLQ_HEADERS.code], 'INVALID_EVENT');
    assert.equal(headers[DLQ_HEADERS.topic], topic);
    assert.equal(headers[DLQ_HEADERS.groupId], groupId);
    assert.deepEqual(JSON.parse(dead[0]!.value.toString()), { id: 'poison' });
  });

  test(`${name}: a retriable error is retried with backoff until the handler succeeds`, async (t) => {
    const topic = uniqueName('retry');
    const bus = await openBus(t, make, [topic, `${topic}.dlq`]);
    const attempts: number[] = [];
    let done = false;
    await bus.subscribe({
      groupId: uniqueName('g'),
      topic,
      dlqTopic: `${topic}.dlq`,
      retry: fastRetry,
      handler: async (_r, ctx) => {
        attempts.push(ctx.attempt);
        if (ctx.attempt < 3) throw new AppError('DEPENDENCY_UNAVAILABLE', 'database restarting');
        done = true;
      },
    });
    await bus.publish(topic, [record('k', { id: 1 })]);
    await waitFor('success on the third attempt', async () => done);
    assert.deepEqual(attempts, [1, 2, 3]);
  });

  test(`${name}: a dependency outage outlasting maxAttempts is waited for, never dead-lettered; the work's own retriable failures are`, async (t) => {
    const topic = uniqueName('outage');
    const bus = await openBus(t, make, [topic, `${topic}.dlq`]);
    const attempts = new Map<number, number>();
    await bus.subscribe({
      groupId: uniqueName('g'),
      topic,
      dlqTopic: `${topic}.dlq`,
      retry: fastRetry,
      handler: async (r, ctx) => {
        const { id } = JSON.parse(r.value.toString()) as { id: number };
        attempts.set(id, ctx.attempt);
        // id 1: the database is down for twice the attempts the policy allows; id 2: a deadlock every time
        if (id === 1 && ctx.attempt < fastRetry.maxAttempts * 2)
          throw new AppError('DEPENDENCY_UNAVAILABLE', 'database restarting');
        if (id === 2) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      },
    });
    const dead = await collectDeadLetters(bus, `${topic}.dlq`);
    await bus.publish(topic, [record('a', { id: 1 }), record('b', { id: 2 })]);
    await waitFor(
      'the outage outlasted and the deadlock given up on',
      async () => attempts.get(1) === fastRetry.maxAttempts * 2 && dead.length === 1,
    );
    assert.equal(attempts.get(2), fastRetry.maxAttempts);
    assert.equal(JSON.parse(dead[0]!.value.toString()).id, 2);
  });

  test(`${name}: a subscription stopped while a record waits for its retry leaves it for redelivery, not the dead-letter topic`, async (t) => {
    const topic = uniqueName('stop-mid-retry');
    const bus = await openBus(t, make, [topic, `${topic}.dlq`]);
    const groupId = uniqueName('g');
    let tries = 0;
    const first = await bus.subscribe({
      groupId,
      topic,
      dlqTopic: `${topic}.dlq`,
      // the wait after the first failure lasts far longer than the test
      retry: { maxAttempts: 4, initialDelayMs: 3_600_000, maxDelayMs: 3_600_000 },
      handler: async () => {
        tries++;
        throw new AppError('DEPENDENCY_UNAVAILABLE', 'database restarting');
      },
    });
    const dead = await collectDeadLetters(bus, `${topic}.dlq`);
    await bus.publish(topic, [record('a', { id: 1 })]);
    await waitFor('the first try to fail', async () => tries === 1);
    await first.stop();
    const again: number[] = [];
    await bus.subscribe({
      groupId,
      topic,
      dlqTopic: `${topic}.dlq`,
      retry: fastRetry,
      handler: async (r) => void again.push((JSON.parse(r.value.toString()) as { id: number }).id),
    });
    await waitFor('the record delivered again', async () => again.length > 0);
    assert.deepEqual([again, tries, dead.length], [[1], 1, 0]);
  });

  test(`${name}: an event that is not JSON or breaks the topic schema goes to the dead-letter topic`, async (t) => {
    const topic = uniqueName('poison');
    const bus = await openBus(t, make, [topic, `${topic}.dlq`]);
    const schema = z.object({ type: z.literal('greeting'), text: z.string() });
    const typed = { name: topic, dlq: `${topic}.dlq`, schema, keyOf: () => 'k' };
    const handled: string[] = [];
    await subscribeEvents(bus, typed, {
      groupId: uniqueName('g'),
      retry: fastRetry,
      handler: async (e) => void handled.push(e.text),
    });
    const dead = await collectDeadLetters(bus, typed.dlq);
    await bus.publish(topic, [
      { key: 'k', value: 'not json {' },
      record('k', { type: 'greeting' }),
      record('k', { type: 'greeting', text: 'hi' }),
    ]);
    await waitFor('two dead letters and one handled event', async () => dead.length === 2 && handled.length === 1);
    assert.deepEqual(handled, ['hi']);
    assert.equal(dead[0]!.headers[DLQ_HEADERS.reason], 'record value is not JSON');
    assert.match(dead[1]!.headers[DLQ_HEADERS.reason]!, /text/);
    assert.equal(dead[1]!.headers[DLQ_HEADERS.code], 'INVALID_EVENT');
  });

  test(`${name}: retries that run out dead-letter the record with the last error`, async (t) => {
    const topic = uniqueName('exhaust');
    const bus = await openBus(t, make, [topic, `${topic}.dlq`]);
    let attempts = 0;
    await bus.subscribe({
      groupId: uniqueName('g'),
      topic,
      dlqTopic: `${topic}.dlq`,
      retry: { maxAttempts: 3, initialDelayMs: 5, maxDelayMs: 10 },
      handler: async () => {
        attempts++;
        throw new AppError('TIMEOUT', `attempt ${attempts} timed out`);
      },
    });
    const dead = await collectDeadLetters(bus, `${topic}.dlq`);
    await bus.publish(topic, [record('k', { id: 1 })]);
    await waitFor('the dead letter', async () => dead.length === 1);
    assert.equal(attempts, 3);
    assert.equal(dead[0]!.headers[DLQ_HEADERS.reason], 'attempt 3 timed out');
    assert.equal(dead[0]!.headers[DLQ_HEADERS.attempts], '3');
  });
}

for (const [name, make] of implementations) {
  test(`${name}: batches are handled together, and a batch with a poison record is taken apart so only it is dead-lettered`, async (t) => {
    const topic = uniqueName('batch');
    const bus = await openBus(t, make, [topic, `${topic}.dlq`]);
    const dead = await collectDeadLetters(bus, `${topic}.dlq`);
    // Publish before subscribing, so the consumer finds a backlog and batches really form.
    await bus.publish(
      topic,
      Array.from({ length: 40 }, (_, n) => record('k', { n, poison: n === 17 })),
    );
    const batchSizes: number[] = [];
    const handled: number[] = [];
    const deadListened: string[] = [];
    const decode = (r: BusRecord) => JSON.parse(r.value.toString()) as { n: number; poison: boolean };
    await bus.subscribe({
      groupId: uniqueName('g'),
      topic,
      dlqTopic: `${topic}.dlq`,
      retry: fastRetry,
      maxBatchSize: 10,
      batchHandler: async (records) => {
        // all or nothing, like the converter's one transaction
        if (records.some((r) => decode(r).poison)) throw new AppError('INVALID_EVENT', 'poison in batch');
        batchSizes.push(records.length);
        handled.push(...records.map((r) => decode(r).n));
      },
      handler: async (r) => {
        if (decode(r).poison) throw new AppError('INVALID_EVENT', `poison record ${decode(r).n}`);
        handled.push(decode(r).n);
      },
      onDeadLetter: async (r, reason) => void deadListened.push(`${decode(r).n}:${reason.code}`),
    });
    await waitFor('39 handled and 1 dead-lettered', async () => handled.length === 39 && dead.length === 1);
    assert.deepEqual(
      handled,
      Array.from({ length: 40 }, (_, n) => n).filter((n) => n !== 17),
      'each once, in order',
    );
    assert.ok(
      batchSizes.some((size) => size > 1),
      `records were handled in batches (${batchSizes.join(',')})`,
    );
    assert.ok(
      batchSizes.every((size) => size <= 10),
      'no batch above maxBatchSize',
    );
    assert.equal(decode(dead[0]!).n, 17);
    assert.equal(dead[0]!.headers[DLQ_HEADERS.reason], 'poison record 17');
    assert.deepEqual(deadListened, ['17:INVALID_EVENT'], 'the dead-letter listener heard of it');
  });
}

for (const [name, make] of implementations) {
  test(`${name}: reports produce, lag, handler and dead-letter series under the names both buses share`, async (t) => {
    const topic = uniqueName('metrics');
    const metrics = new Metrics();
    const bus = await openBus(t, make, [topic, `${topic}.dlq`], metrics);
    const group = uniqueName('g');
    let failedOnce = false;
    const handled: number[] = [];
    await bus.subscribe({
      groupId: group,
      topic,
      dlqTopic: `${topic}.dlq`,
      retry: fastRetry,
      handler: async (r) => {
        const { n } = JSON.parse(r.value.toString()) as { n: number };
        if (n === 3 && !failedOnce) {
          failedOnce = true;
          throw new AppError('DEPENDENCY_UNAVAILABLE', 'flaky');
        }
        if (n === 5) throw new AppError('INVALID_EVENT', 'five is poison');
        handled.push(n);
      },
    });
    await bus.publish(
      topic,
      Array.from({ length: 8 }, (_, n) => record('k', { n })),
    );
    await waitFor('7 handled', async () => handled.length === 7);
    const labels = { topic, group };
    // The lag gauge and the last counters are set right after the handler returns: wait for them.
    const samples = await waitFor('every record counted', async () => {
      const now = await samplesOf(metrics);
      return total(now, 'memstream_consumer_records_total', { ...labels, outcome: 'ok' }) === 7 ? now : undefined;
    });
    assert.equal(total(samples, 'memstream_bus_produce_duration_seconds_count', { topic }), 1);
    assert.equal(total(samples, 'memstream_bus_produced_records_total', { topic }), 8);
    assert.equal(
      total(samples, 'memstream_bus_produce_duration_seconds_count', { topic: `${topic}.dlq` }),
      1,
      'the dead letter is a produce too',
    );
    assert.equal(total(samples, 'memstream_bus_produce_errors_total'), 0);
    assert.equal(total(samples, 'memstream_consumer_records_total', { ...labels, outcome: 'retried' }), 1);
    assert.equal(total(samples, 'memstream_consumer_records_total', { ...labels, outcome: 'dead_lettered' }), 1);
    assert.equal(total(samples, 'memstream_consumer_dead_letters_total', { ...labels, reason: 'INVALID_EVENT' }), 1);
    assert.equal(
      total(samples, 'memstream_consumer_handler_duration_seconds_count', labels),
      9,
      'every attempt is timed',
    );
    const lag = await waitFor('the lag of the consumed partition back to 0', async () => {
      const now = series(await samplesOf(metrics), 'memstream_consumer_lag_records', labels);
      return now.length > 0 && now.every((s) => s.value === 0) ? now : undefined;
    });
    assert.ok(
      lag.every((s) => /^\d+$/.test(s.labels['partition']!)),
      'lag is per partition',
    );
  });

  test(`${name}: the correlation header reaches the handler's logger and context, and typed events carry it`, async (t) => {
    const topic = uniqueName('corr');
    const bus = await openBus(t, make, [topic, `${topic}.dlq`]);
    const schema = z.object({ text: z.string(), correlation_id: z.string().optional() });
    const typed = { name: topic, dlq: `${topic}.dlq`, schema, keyOf: () => 'k' };
    const seen: Array<{ event: z.infer<typeof schema>; ids: readonly string[] }> = [];
    await subscribeEvents(bus, typed, {
      groupId: uniqueName('g'),
      retry: fastRetry,
      handler: async (event, ctx) => void seen.push({ event, ids: ctx.correlationIds }),
    });
    await bus.publish(topic, [
      { key: 'k', value: JSON.stringify({ text: 'header only' }), headers: { [CORRELATION_HEADER]: 'req-1' } },
      {
        key: 'k',
        value: JSON.stringify({ text: 'both', correlation_id: 'from-envelope' }),
        headers: { [CORRELATION_HEADER]: 'req-2' },
      },
      { key: 'k', value: JSON.stringify({ text: 'neither' }) },
    ]);
    await waitFor('three events', async () => seen.length === 3);
    assert.deepEqual(
      seen.map((s) => [s.event.correlation_id, s.ids]),
      [
        ['req-1', ['req-1']],
        ['from-envelope', ['req-2']],
        [undefined, []],
      ],
    );
  });

  test(`${name}: a cut deletes what is below it; a new group starts at the cut and later records still arrive`, async (t) => {
    const topic = uniqueName('cut');
    const bus = await openBus(t, make, [topic, `${topic}.dlq`]);
    const groupId = uniqueName('g');
    const seen: string[] = [];
    await bus.subscribe({
      groupId,
      topic,
      dlqTopic: `${topic}.dlq`,
      retry: fastRetry,
      handler: async (r) => void seen.push(r.value.toString()),
    });
    await bus.publish(topic, [record('k', 'before-1'), record('k', 'before-2'), record('j', 'before-3')]);
    await waitFor('the group passed every record', async () => {
      const committed = await bus.committed(topic, groupId);
      return (await bus.ranges(topic)).every((r) => (committed.get(r.partition) ?? r.start) >= r.end);
    });
    const ranges = await bus.ranges(topic);
    const held = await bus.scan(topic, ranges);
    assert.deepEqual(held.map((r) => JSON.parse(r.value.toString())).sort(), ['before-1', 'before-2', 'before-3']);
    await bus.deleteBelow(
      topic,
      ranges.map((r) => ({ partition: r.partition, offset: r.end })),
    );
    assert.deepEqual(await bus.scan(topic, await bus.ranges(topic)), []);
    await bus.publish(topic, [record('k', 'after')]);
    const fresh: string[] = [];
    await bus.subscribe({
      groupId: uniqueName('fresh'),
      topic,
      dlqTopic: `${topic}.dlq`,
      retry: fastRetry,
      handler: async (r) => void fresh.push(JSON.parse(r.value.toString())),
    });
    await waitFor('the old group gets the later record', async () => seen.length === 4);
    await waitFor('the new group reads from the cut', async () => fresh.length === 1);
    assert.deepEqual(fresh, ['after']);
  });

  test(`${name}: consumerLag counts what each group has not committed past, a group that never committed from the start`, async (t) => {
    const topic = uniqueName('lag');
    const bus = await openBus(t, make, [topic, `${topic}.dlq`]);
    const [reader, absent] = [uniqueName('reader'), uniqueName('absent')];
    const lagOf = async () => {
      const lags = await consumerLag(bus, [{ topic, groupIds: [reader, absent] }]);
      return Object.fromEntries(lags.map((l) => [l.group, l]));
    };
    await bus.publish(topic, [record('a', 1), record('b', 2), record('c', 3)]);
    let hold: (() => void) | undefined;
    let holding = false;
    const release = new Promise<void>((resolve) => (hold = resolve));
    await bus.subscribe({
      groupId: reader,
      topic,
      dlqTopic: `${topic}.dlq`,
      retry: fastRetry,
      handler: async (r) => {
        if (JSON.parse(r.value.toString()) === 'stop') {
          holding = true;
          await release;
        }
      },
    });
    await waitFor('the reader caught up', async () => (await lagOf())[reader]?.lag === 0);
    await bus.publish(topic, [record('a', 'stop'), record('a', 4), record('a', 5)]);
    await waitFor('the reader held on a record', async () => holding);
    const behind = await lagOf();
    assert.equal(behind[reader]!.lag, 3, 'the held record and the two behind it on its partition');
    assert.equal(behind[absent]!.lag, 6, 'a group that never committed: every record kept');
    assert.ok(behind[absent]!.partitions.every((p) => p.committed === null));
    assert.equal(
      behind[reader]!.partitions.reduce((n, p) => n + p.lag, 0),
      3,
    );
    hold?.();
    await waitFor('the reader caught up again', async () => (await lagOf())[reader]?.lag === 0);
  });
}

// Kafka's gauge is what the consumer saw at its last fetch; the in-process bus sees its own log,
// so a consumer stuck in a handler (a model call that never answers) shows its lag growing.
for (const [name, make] of implementations.filter(([name]) => name !== 'Kafka bus')) {
  test(`${name}: a consumer stuck in its handler reports its lag growing as records arrive`, async (t) => {
    const topic = uniqueName('stuck');
    const metrics = new Metrics();
    const bus = await openBus(t, make, [topic, `${topic}.dlq`], metrics);
    const group = uniqueName('g');
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    t.after(() => release());
    const started: string[] = [];
    await bus.subscribe({
      groupId: group,
      topic,
      dlqTopic: `${topic}.dlq`,
      retry: fastRetry,
      handler: async (r) => {
        started.push(r.value.toString());
        await released;
      },
    });
    const lagOf = async () => total(await samplesOf(metrics), 'memstream_consumer_lag_records', { topic, group });
    await bus.publish(topic, [record('k', 0)]);
    await waitFor('the consumer stuck on the first record', async () => started.length === 1);
    for (const n of [1, 2, 3]) {
      await bus.publish(topic, [record('k', n)]);
      // the record it holds and those behind it
      await waitFor(`a lag of ${n + 1}`, async () => (await lagOf()) === n + 1);
    }
    assert.equal(started.length, 1, 'the consumer never moved');
    release();
    await waitFor('the lag back to 0 once it moves on', async () => started.length === 4 && (await lagOf()) === 0);
  });
}
