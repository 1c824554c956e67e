import type { BusRecord } from './bus.js';
import type { JournalContents } from './bus-journal.js';

/** One topic's share of a loaded journal, before the bus knows how many partitions it has. */
export interface JournaledTopic {
  readonly records: Map<number, BusRecord[]>;
  /** groupId -> partition -> next offset */
  readonly positions: Map<string, Map<number, number>>;
}

export interface RestoredPartition {
  /** Offset of records[0]; the next record appended gets base + records.length. */
  readonly base: number;
  readonly records: BusRecord[];
}

export interface RestoredTopic {
  readonly partitions: RestoredPartition[];
  /** groupId -> next offset to deliver, per partition */
  readonly committed: Map<string, number[]>;
}

export function journaledTopics(contents: JournalContents): Map<string, JournaledTopic> {
  const topics = new Map<string, JournaledTopic>();
  const topicOf = (name: string) => {
    let t = topics.get(name);
    if (!t) topics.set(name, (t = { records: new Map(), positions: new Map() }));
    return t;
  };
  for (const r of contents.records) {
    const { records } = topicOf(r.topic);
    let list = records.get(r.partition);
    if (!list) records.set(r.partition, (list = []));
    list.push(r);
  }
  for (const p of contents.positions) {
    const { positions } = topicOf(p.topic);
    let group = positions.get(p.groupId);
    if (!group) positions.set(p.groupId, (group = new Map()));
    group.set(p.partition, p.offset);
  }
  return topics;
}

/**
 * A topic as the journal left it: retained records at their original offsets, and each group at
 * its committed position. A partition with nothing retained continues at the highest committed
 * position, never at 0, or a group would skip every offset below its position. Without a journal
 * (or for a topic it never saw) the topic starts empty at offset 0.
 */
export function restoreTopic(name: string, journaled: JournaledTopic | undefined, partitions: number): RestoredTopic {
  const count = Math.max(partitions, ...[...(journaled?.records.keys() ?? [])].map((p) => p + 1));
  const restored = Array.from({ length: count }, (_, p) => restorePartition(name, p, journaled));
  const committed = new Map<string, number[]>();
  for (const [groupId, byPartition] of journaled?.positions ?? []) {
    // Clamped into what is retained: below it the records are gone (Kafka's reset to earliest),
    // above it only a journal edited by hand could be; redelivering is allowed, skipping is not.
    committed.set(
      groupId,
      restored.map((part, p) =>
        Math.min(part.base + part.records.length, Math.max(part.base, byPartition.get(p) ?? part.base)),
      ),
    );
  }
  return { partitions: restored, committed };
}

function restorePartition(topic: string, p: number, journaled: JournaledTopic | undefined): RestoredPartition {
  const records = (journaled?.records.get(p) ?? []).sort((a, b) => Number(a.offset) - Number(b.offset));
  const first = records[0];
  if (!first) {
    let highest = 0;
    for (const byPartition of journaled?.positions.values() ?? []) highest = Math.max(highest, byPartition.get(p) ?? 0);
    return { base: highest, records };
  }
  const base = Number(first.offset);
  records.forEach((r, i) => {
    // Appends are contiguous and trims cut from below, so a hole means the table was edited.
    if (Number(r.offset) !== base + i)
      throw new Error(`bus journal has a gap in ${topic}[${p}] before offset ${r.offset}`);
  });
  return { base, records };
}
