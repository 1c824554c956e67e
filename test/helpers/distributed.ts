import type { TestContext } from 'node:test';
import { freshDatabase, infra, kafkaTopicPrefix, uniqueName } from './infra.js';

/**
 * The settings every process of one distributed-mode test shares: the test's own topics, database
 * and converter group on the real Kafka, PostgreSQL and Redis, plus `extra`.
 */
export async function distributedEnv(t: TestContext, name: string, extra: Record<string, string> = {}): Promise<Record<string, string>> {
  return {
    KAFKA_BROKERS: infra().kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: kafkaTopicPrefix(t, name),
    DATABASE_URL: await freshDatabase(t),
    REDIS_URL: infra().redisUrl,
    CONVERTER_GROUP_ID: uniqueName('converter'),
    ...extra,
  };
}
