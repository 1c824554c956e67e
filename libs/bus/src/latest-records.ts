import type { BusRecord } from './bus.js';
import type { RetainedRecords } from './retained-records.js';

/** What a topic still holds and its latest records. */
export interface LatestRecords {
  /** Records the topic still holds, over every partition. */
  readonly retained: number;
  /** At most `limit`, newest first: the highest offsets, taken round-robin over the partitions. */
  readonly records: BusRecord[];
}

/**
 * The latest `limit` records of a topic, on Kafka and on the embedded journal alike: only the last
 * `limit` offsets of each partition are read, so what a look costs is bounded whatever the topic
 * holds. Records carry no time, so across partitions "latest" is each partition's newest in turn.
 */
export async function latestRecords(retained: RetainedRecords, topic: string, limit: number): Promise<LatestRecords> {
  const ranges = await retained.ranges(topic);
  const total = ranges.reduce((sum, r) => sum + Math.max(0, r.end - r.start), 0);
  const tails = ranges
    .filter((r) => r.end > r.start)
    .map((r) => ({ partition: r.partition, start: Math.max(r.start, r.end - limit), end: r.end }));
  if (tails.length === 0) return { retained: total, records: [] };
  const scanned = await retained.scan(topic, tails);
  const byPartition = new Map<number, BusRecord[]>();
  for (const record of scanned)
    byPartition.set(record.partition, [...(byPartition.get(record.partition) ?? []), record]);
  const queues = [...byPartition.values()].map((records) =>
    records.sort((a, b) => Number(b.offset) - Number(a.offset)),
  );
  const records: BusRecord[] = [];
  for (let i = 0; records.length < limit && queues.some((q) => i < q.length); i++)
    for (const q of queues) if (i < q.length && records.length < limit) records.push(q[i]!);
  return { retained: total, records };
}
