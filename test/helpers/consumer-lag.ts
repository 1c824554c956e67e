import { Kafka, logLevel } from 'kafkajs';

/** Records every consumer group of the broker has not yet committed. */
export async function consumerLag(brokers: string, topicPrefix: string): Promise<number> {
  return Object.values(await consumerLagByGroup(brokers, topicPrefix)).reduce((a, b) => a + b, 0);
}

/** The lag of each group and topic (`group topic`), for a report of what is stuck. */
export async function consumerLagByGroup(brokers: string, topicPrefix: string): Promise<Record<string, number>> {
  const admin = new Kafka({ brokers: brokers.split(','), clientId: 'test-lag', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const lag: Record<string, number> = {};
    const { groups } = await admin.listGroups();
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(topicPrefix) && !t.endsWith('.dlq'));
    const ends = new Map<string, Map<number, number>>();
    for (const topic of topics)
      ends.set(topic, new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, Number(o.high)])));
    for (const { groupId } of groups) {
      for (const { topic, partitions } of await admin.fetchOffsets({ groupId, topics })) {
        for (const p of partitions) {
          const committed = Number(p.offset);
          // a group that never committed on a partition it reads starts from the beginning
          const high = ends.get(topic)?.get(p.partition) ?? 0;
          if (committed >= 0 && high > committed)
            lag[`${groupId} ${topic}`] = (lag[`${groupId} ${topic}`] ?? 0) + high - committed;
        }
      }
    }
    return lag;
  } finally {
    await admin.disconnect();
  }
}
