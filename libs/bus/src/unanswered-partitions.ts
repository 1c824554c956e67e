import { Partitioners, type ICustomPartitioner, type Message, type RecordMetadata, type TopicMessages } from 'kafkajs';
import { keyedPartition } from './murmur2.js';

/**
 * Finds the records a kafkajs send reported as written without the broker ever being asked.
 *
 * kafkajs (2.2.4) sends one request per partition leader and, when one of them fails, retries
 * only the leaders that have not answered yet. If the failed leader's partitions moved to a
 * broker that had already answered (a broker died, its partitions got new leaders), that broker
 * is not asked again: the moved partitions' records are never sent, and the send resolves as if
 * they were. Seen in the fault suite as stored messages whose stored events never reached the
 * topic. Every partition kafkajs wrote to answers with its own metadata, so a partition the
 * records went to that is missing from the answer was not written: those records are sent again.
 */
export class PartitionWitness {
  /** The partition kafkajs last chose for each record object, on its latest attempt. */
  private readonly chosen = new WeakMap<Message, number>();

  /**
   * kafkajs's default partitioner (murmur2, as Java clients), watched. A keyed record's partition
   * is computed here with the same hash in 32-bit arithmetic (murmur2.ts): kafkajs's own took 6%
   * of the converter's CPU in bench:ingest's producer pass, and its allocations more in
   * collection. A record with a partition of its own, or no key, goes to kafkajs's as before.
   */
  readonly createPartitioner: ICustomPartitioner = () => {
    const inner = Partitioners.DefaultPartitioner();
    return (args) => {
      const { message, partitionMetadata } = args;
      const partition =
        message.partition == null && message.key != null && partitionMetadata.length > 0
          ? keyedPartition(message.key, partitionMetadata.length)
          : inner(args);
      this.chosen.set(args.message, partition);
      return partition;
    };
  };

  /** The records of `sent` whose partition is absent from what the send answered, by topic. */
  unanswered(sent: readonly TopicMessages[], answered: readonly RecordMetadata[]): TopicMessages[] {
    const written = new Set(answered.map((m) => `${m.topicName}\u0000${m.partition}`));
    const out: TopicMessages[] = [];
    for (const { topic, messages } of sent) {
      const missing = messages.filter((m) => {
        const partition = this.chosen.get(m);
        return partition === undefined || !written.has(`${topic}\u0000${partition}`);
      });
      if (missing.length > 0) out.push({ topic, messages: missing });
    }
    return out;
  }
}
