import type { TestContext } from 'node:test';
import { KafkaBus } from '@memstream/bus';
import type { Logger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { infra, kafkaTopicPrefix } from './infra.js';

/**
 * A KafkaBus on the test broker under a topic prefix of its own (its topics deleted once the
 * file's tests are over), closed when the test ends: two partitions a topic, offsets committed every 50 ms so a
 * test that restarts a consumer does not wait on the default interval.
 */
export function testKafkaBus(t: TestContext, label: string, log: Logger): { bus: KafkaBus; prefix: string } {
  const prefix = kafkaTopicPrefix(label);
  const bus = new KafkaBus({
    brokers: infra().kafkaBrokers,
    clientId: `${label}-test`,
    topicPrefix: prefix,
    log,
    defaultPartitions: 2,
    replicationFactor: 1,
    requestTimeoutMs: 30_000,
    commitIntervalMs: 50,
    metrics: new Metrics(),
  });
  t.after(() => bus.close());
  return { bus, prefix };
}
