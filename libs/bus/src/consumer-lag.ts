import type { RetainedRecords } from './retained-records.js';

/** One partition of a topic as a group stands on it. */
export interface PartitionLag {
  readonly partition: number;
  /** The offset the next record written gets. */
  readonly end: number;
  /** The offset the group resumes from; null when it never committed on this partition. */
  readonly committed: number | null;
  /** Records written that the group has not committed past. */
  readonly lag: number;
}

/** How far one consumer group is behind on one topic. */
export interface GroupLag {
  readonly group: string;
  readonly topic: string;
  /** Summed over the partitions. */
  readonly lag: number;
  readonly partitions: PartitionLag[];
}

/**
 * Each group's lag from the bus's own offsets: every partition's end against where the group
 * committed, so it is known whichever process runs the group, and grows while that process is
 * down (a consumer's own gauge stops with it). A group that never committed reads from the
 * start of what the topic keeps (our subscriptions start from the beginning), and a commit below
 * that start resumes at it, so neither counts records retention already removed.
 */
export async function consumerLag(
  retained: RetainedRecords,
  topics: readonly { readonly topic: string; readonly groupIds: readonly string[] }[],
): Promise<GroupLag[]> {
  const perTopic = await Promise.all(
    topics.map(async ({ topic, groupIds }) => {
      const [ranges, commits] = await Promise.all([
        retained.ranges(topic),
        Promise.all(groupIds.map((g) => retained.committed(topic, g))),
      ]);
      return groupIds.map((group, i): GroupLag => {
        const partitions = ranges.map((r) => {
          const committed = commits[i]!.get(r.partition) ?? null;
          const from = Math.max(committed ?? r.start, r.start);
          return { partition: r.partition, end: r.end, committed, lag: Math.max(0, r.end - from) };
        });
        return { group, topic, lag: partitions.reduce((n, p) => n + p.lag, 0), partitions };
      });
    }),
  );
  return perTopic.flat();
}
