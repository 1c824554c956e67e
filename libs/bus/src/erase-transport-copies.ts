import { AppError } from '@memstream/errors';
import { sleep } from '@memstream/retry';
import type { Bus, BusRecord, OutgoingRecord } from './bus.js';
import { mentionsPerson } from './mentions-person.js';
import type { PartitionCut, PartitionRange } from './retained-records.js';

/** A topic consumers read, with every consumer group that must have passed a record before it may go. */
export interface ConsumedTopic {
  readonly topic: string;
  readonly groupIds: readonly string[];
}

export interface TransportErasure {
  readonly bus: Pick<Bus, 'ranges' | 'committed' | 'scan' | 'deleteBelow' | 'publish'>;
  readonly userId: string;
  /**
   * Every topic a consumer reads, in pipeline order: a topic before the topics its consumers
   * publish to, so that what the first stage makes of the person's records is on the next topic
   * before that topic is cut.
   */
  readonly consumed: readonly ConsumedTopic[];
  /** Topics no consumer reads (the dead-letter twins): only the person's records leave them. */
  readonly deadLetters: readonly string[];
  /** Which dead letters are the person's; unset, mentionsPerson(userId). */
  readonly isTheirs?: (record: BusRecord) => boolean;
  /**
   * Whether a listed group that has committed on no partition of a topic is passed over instead
   * of waited for. Set it when the list names every group that may run rather than the ones that
   * do (a service not deployed never commits): such a group holds nothing back. Unset, it is waited for.
   */
  readonly skipGroupsWithoutCommits?: boolean;
  /** How long the groups may take to pass what was published before the erasure; unset, 60 s. */
  readonly drainTimeoutMs?: number;
  /** How often the groups' positions are read while waiting; unset, 250 ms. */
  readonly pollMs?: number;
  readonly signal?: AbortSignal;
}

/** What one erasure removed from the transport, per topic (counts of records, never content). */
export interface TransportErasureCounts {
  /** Records of a consumed topic deleted with its consumed prefix: everyone's, the person's among them. */
  readonly consumedRemoved: Readonly<Record<string, number>>;
  /** The person's dead letters deleted. */
  readonly deadLettersRemoved: Readonly<Record<string, number>>;
  /** Other people's dead letters rewritten past the cut (same key, value and headers; new offsets). */
  readonly deadLettersKept: Readonly<Record<string, number>>;
}

/** On a dead letter rewritten by an erasure: `<partition>:<offset>` where it was first written. */
export const COPIED_FROM_HEADER = 'x-copied-from';

/**
 * Removes a person's records from every topic (Kafka's log, or the embedded bus's memory and
 * journal), so that no reader from offset 0 gets their content back. Run it after their rows are
 * gone, so that nothing consumed later can bring them back.
 *
 * Consumed topics lose their whole consumed prefix, everyone's records with the person's: once
 * every group has passed the offsets the topic had when the erasure reached it, everything below
 * them is deleted. The topics a direct producer writes hold plain JSON we cannot encrypt, and a
 * memory made of several people's words has no one owner, so only deletion removes them; and once
 * consumed, those records live on in the tables, which the erasure rewrites. Dead-letter topics
 * are read by people, not consumers: the person's dead letters go, everyone else's are written
 * again past the cut first. Safe to run again after a crash at any point: a rewritten dead letter
 * carries where it came from, so a second run keeps one copy of each.
 *
 * Throws TIMEOUT (retriable) when a group does not catch up in time; nothing is cut on that topic
 * or the ones after it, and the caller runs the erasure again later. Never call it from inside a
 * handler of a group it waits for: that group cannot pass the record it is handling, so the wait
 * could only time out.
 */
export async function eraseTransportCopies(erasure: TransportErasure): Promise<TransportErasureCounts> {
  const consumedRemoved: Record<string, number> = {};
  for (const consumed of erasure.consumed) {
    consumedRemoved[consumed.topic] = await cutConsumed(erasure, consumed);
  }
  const isTheirs = erasure.isTheirs ?? mentionsPerson(erasure.userId);
  const deadLettersRemoved: Record<string, number> = {};
  const deadLettersKept: Record<string, number> = {};
  for (const topic of erasure.deadLetters) {
    const outcome = await rewriteDeadLetters(erasure, topic, isTheirs);
    deadLettersRemoved[topic] = outcome.removed;
    deadLettersKept[topic] = outcome.kept;
  }
  return { consumedRemoved, deadLettersRemoved, deadLettersKept };
}

async function cutConsumed(erasure: TransportErasure, { topic, groupIds }: ConsumedTopic): Promise<number> {
  const ranges = (await erasure.bus.ranges(topic)).filter((r) => r.end > r.start);
  if (ranges.length === 0) return 0;
  await waitForGroups(erasure, topic, groupIds, ranges);
  await erasure.bus.deleteBelow(topic, cutsAt(ranges));
  return ranges.reduce((n, r) => n + (r.end - r.start), 0);
}

/** Until every group has committed past the end of every range, or the drain timeout. */
async function waitForGroups(
  erasure: TransportErasure,
  topic: string,
  groupIds: readonly string[],
  ranges: readonly PartitionRange[],
): Promise<void> {
  const timeoutMs = erasure.drainTimeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const behind = await groupsBehind(erasure, topic, groupIds, ranges);
    if (behind.length === 0) return;
    if (Date.now() > deadline) {
      throw new AppError('TIMEOUT', `consumer groups have not passed ${topic} in ${timeoutMs} ms`, {
        details: { topic, groups: behind },
      });
    }
    await sleep(erasure.pollMs ?? 250, erasure.signal);
  }
}

async function groupsBehind(
  erasure: TransportErasure,
  topic: string,
  groupIds: readonly string[],
  ranges: readonly PartitionRange[],
): Promise<string[]> {
  const behind: string[] = [];
  for (const groupId of groupIds) {
    const committed = await erasure.bus.committed(topic, groupId);
    if (committed.size === 0 && erasure.skipGroupsWithoutCommits) continue;
    if (ranges.some((r) => (committed.get(r.partition) ?? -1) < r.end)) behind.push(groupId);
  }
  return behind;
}

async function rewriteDeadLetters(
  erasure: TransportErasure,
  topic: string,
  isTheirs: (record: BusRecord) => boolean,
): Promise<{ removed: number; kept: number }> {
  const ranges = (await erasure.bus.ranges(topic)).filter((r) => r.end > r.start);
  if (ranges.length === 0) return { removed: 0, kept: 0 };
  const records = await erasure.bus.scan(topic, ranges);
  const theirs = records.filter(isTheirs);
  // Nothing of theirs: leave the topic as it is rather than rewrite everyone's dead letters.
  if (theirs.length === 0) return { removed: 0, kept: 0 };
  const others = new Map<string, BusRecord>();
  for (const r of records) {
    if (isTheirs(r)) continue;
    const origin = r.headers[COPIED_FROM_HEADER] ?? `${r.partition}:${r.offset}`;
    if (!others.has(origin)) others.set(origin, r);
  }
  const copies: OutgoingRecord[] = [...others].map(([origin, r]) => ({
    key: r.key,
    value: r.tombstone ? null : r.value,
    headers: { ...r.headers, [COPIED_FROM_HEADER]: origin },
  }));
  if (copies.length > 0) await erasure.bus.publish(topic, copies);
  await erasure.bus.deleteBelow(topic, cutsAt(ranges));
  return { removed: theirs.length, kept: copies.length };
}

function cutsAt(ranges: readonly PartitionRange[]): PartitionCut[] {
  return ranges.map((r) => ({ partition: r.partition, offset: r.end }));
}
