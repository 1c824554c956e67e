/** Readers that start every topic at offset 0, as someone looking for what a topic still holds would. */
import type { Kafka } from 'kafkajs';
import type { Bus, BusRecord, Subscription } from '@memstream/bus';
import { uniqueName, waitFor } from './infra.js';

export function carries(marker: string): (r: BusRecord) => boolean {
  return (r) =>
    r.value.toString('utf8').includes(marker) ||
    (r.key ?? '').includes(marker) ||
    Object.values(r.headers).some((h) => h.includes(marker));
}

export function where(r: BusRecord): string {
  return `${r.topic}[${r.partition}]@${r.offset}`;
}

/** A plain kafkajs consumer of a group never seen before, from the earliest offset to the end of each partition. */
export async function readKafkaFromZero(kafka: Kafka, prefix: string, topics: readonly string[]): Promise<BusRecord[]> {
  const admin = kafka.admin();
  await admin.connect();
  const left = new Map<string, bigint>();
  try {
    for (const topic of topics) {
      for (const p of await admin.fetchTopicOffsets(`${prefix}${topic}`)) {
        if (BigInt(p.high) > BigInt(p.low)) left.set(`${prefix}${topic}:${p.partition}`, BigInt(p.high) - 1n);
      }
    }
  } finally {
    await admin.disconnect();
  }
  const records: BusRecord[] = [];
  if (left.size === 0) return records;
  const groupId = uniqueName('reader');
  const consumer = kafka.consumer({ groupId });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: topics.map((t) => `${prefix}${t}`), fromBeginning: true });
    let done: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ topic, partition, message }) => {
        records.push({
          topic: topic.slice(prefix.length),
          partition,
          offset: message.offset,
          key: message.key?.toString() ?? null,
          value: message.value ?? Buffer.alloc(0),
          headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)])),
        });
        const last = left.get(`${topic}:${partition}`);
        if (last !== undefined && BigInt(message.offset) >= last) left.delete(`${topic}:${partition}`);
        if (left.size === 0) done();
      },
    });
    await waitFor('the reader reached the end of every topic', async () => left.size === 0, 60_000);
    await finished;
  } finally {
    await consumer.disconnect();
  }
  return records;
}

/** A group of the in-process bus never seen before, on every topic, until it has what each partition holds. */
export async function readBusFromZero(bus: Bus, topics: readonly string[]): Promise<BusRecord[]> {
  const records: BusRecord[] = [];
  const groupId = uniqueName('reader');
  let expected = 0;
  for (const topic of topics) {
    await bus.ensureTopics([{ name: topic }]);
    for (const r of await bus.ranges(topic)) expected += r.end - r.start;
  }
  const subs: Subscription[] = [];
  for (const topic of topics) {
    subs.push(
      await bus.subscribe({
        groupId,
        topic,
        dlqTopic: `${topic}.reader-dlq`,
        retry: { maxAttempts: 1, initialDelayMs: 10, maxDelayMs: 10 },
        handler: async (record) => {
          records.push(record);
        },
      }),
    );
  }
  await waitFor('the reader has every record', async () => records.length >= expected, 30_000);
  await Promise.all(subs.map((s) => s.stop()));
  return records;
}
