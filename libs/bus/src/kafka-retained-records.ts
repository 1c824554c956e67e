import { randomUUID } from 'node:crypto';
import type { Admin, Kafka } from 'kafkajs';
import { AppError } from '@memstream/errors';
import type { BusRecord } from './bus.js';
import type { PartitionRange, RetainedRecords } from './retained-records.js';
import { decodeHeaders } from './kafka-headers.js';

export interface KafkaRetainedOptions {
  readonly kafka: Kafka;
  readonly clientId: string;
  /** The topic's name on the wire (the bus's prefix prepended). */
  readonly wire: (topic: string) => string;
  /** A consumer group's id on the wire (the same prefix). */
  readonly wireGroup: (groupId: string) => string;
  /** How long one scan may take before it gives up. */
  readonly timeoutMs: number;
}

/**
 * RetainedRecords on Kafka through its admin API; a scan reads with a throwaway consumer group.
 * The offset looks (ranges, committed) share one admin connection, opened at the first and kept:
 * the console's Pipeline view asks for every group's lag every few seconds, a dozen looks each.
 * A look that fails drops the connection, so the next one connects afresh.
 */
export function kafkaRetainedRecords(options: KafkaRetainedOptions): RetainedRecords & { close(): Promise<void> } {
  let shared: Promise<Admin> | undefined;
  const drop = async (): Promise<void> => {
    const was = shared;
    shared = undefined;
    const admin = await was?.catch(() => undefined);
    await admin?.disconnect().catch(() => undefined);
  };
  const withSharedAdmin = async <T>(work: (admin: Admin) => Promise<T>): Promise<T> => {
    if (!shared) {
      const admin = options.kafka.admin();
      shared = admin.connect().then(() => admin);
    }
    try {
      return await work(await shared);
    } catch (err) {
      await drop();
      throw err;
    }
  };
  const withAdmin = async <T>(work: (admin: Admin) => Promise<T>): Promise<T> => {
    const admin = options.kafka.admin();
    await admin.connect();
    try {
      return await work(admin);
    } finally {
      await admin.disconnect();
    }
  };
  return {
    ranges: (topic) =>
      withSharedAdmin(async (admin) =>
        (await admin.fetchTopicOffsets(options.wire(topic)))
          .map((p) => ({ partition: p.partition, start: Number(p.low), end: Number(p.high) }))
          .sort((a, b) => a.partition - b.partition),
      ),
    committed: (topic, groupId) =>
      withSharedAdmin(async (admin) => {
        const [offsets] = await admin.fetchOffsets({
          groupId: options.wireGroup(groupId),
          topics: [options.wire(topic)],
        });
        const out = new Map<number, number>();
        for (const p of offsets?.partitions ?? []) if (Number(p.offset) >= 0) out.set(p.partition, Number(p.offset));
        return out;
      }),
    scan: (topic, ranges) => scanRanges(options, topic, ranges),
    close: drop,
    deleteBelow: (topic, cuts) =>
      withAdmin(async (admin) => {
        if (cuts.length === 0) return;
        // A fresh admin knows no topic yet, and kafkajs's deleteTopicRecords does not load it itself.
        await admin.fetchTopicMetadata({ topics: [options.wire(topic)] });
        await admin.deleteTopicRecords({
          topic: options.wire(topic),
          partitions: cuts.map((c) => ({ partition: c.partition, offset: String(c.offset) })),
        });
      }),
  };
}

/**
 * kafkajs has no manual assignment, so a scan joins a group of its own, seeks each partition to
 * its range's first offset and reads until every range's last offset went by, and deletes the group afterwards so no
 * stale group is left on the broker.
 */
async function scanRanges(
  options: KafkaRetainedOptions,
  topic: string,
  ranges: readonly PartitionRange[],
): Promise<BusRecord[]> {
  const wanted = ranges.filter((r) => r.end > r.start);
  if (wanted.length === 0) return [];
  const byPartition = new Map(wanted.map((r) => [r.partition, r]));
  const remaining = new Set(wanted.map((r) => r.partition));
  const records: BusRecord[] = [];
  const groupId = `${options.clientId}.scan.${randomUUID()}`;
  const consumer = options.kafka.consumer({ groupId, sessionTimeout: 30_000 });
  let finish: (() => void) | undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: options.wire(topic), fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        const range = byPartition.get(batch.partition);
        if (!range) return;
        for (const m of batch.messages) {
          const offset = Number(m.offset);
          if (offset >= range.start && offset < range.end) {
            records.push({
              topic,
              partition: batch.partition,
              offset: m.offset,
              key: m.key?.toString() ?? null,
              value: m.value ?? Buffer.alloc(0),
              headers: decodeHeaders(m.headers),
              ...(m.value === null ? { tombstone: true as const } : {}),
            });
          }
          if (offset >= range.end - 1) remaining.delete(batch.partition);
        }
        if (remaining.size === 0) finish?.();
      },
    });
    // Straight to each range's first record: a look at a topic's tail reads only the tail.
    for (const r of wanted)
      consumer.seek({ topic: options.wire(topic), partition: r.partition, offset: String(r.start) });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new AppError('TIMEOUT', `scanning ${topic} did not reach its end in ${options.timeoutMs} ms`)),
        options.timeoutMs,
      );
    });
    await Promise.race([done, late]).finally(() => clearTimeout(timer));
  } finally {
    await consumer.disconnect();
    await deleteGroup(options.kafka, groupId);
  }
  return records.sort((a, b) => a.partition - b.partition || Number(a.offset) - Number(b.offset));
}

/** Best effort: a group left behind holds no records back (nothing waits on it), it only lingers in listings. */
async function deleteGroup(kafka: Kafka, groupId: string): Promise<void> {
  const admin = kafka.admin();
  try {
    await admin.connect();
    await admin.deleteGroups([groupId]);
  } catch {
    // the broker expires an empty group by itself (offsets.retention.minutes)
  } finally {
    await admin.disconnect();
  }
}
