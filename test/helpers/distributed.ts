import type { TestContext } from 'node:test';
import { startEdge } from '../../harness/edge.js';
import { startServing } from '../../harness/processes.js';
import { freshDatabase, infra, kafkaTopicPrefix, uniqueName } from './infra.js';
import { mainOf } from '../../scripts/processes.js';

/**
 * The settings every process of one distributed-mode test shares: the test's own topics, database
 * and consumer groups on the real Kafka, PostgreSQL and Redis, plus `extra`.
 */
export async function distributedEnv(
  t: TestContext,
  name: string,
  extra: Record<string, string> = {},
): Promise<Record<string, string>> {
  return {
    KAFKA_BROKERS: infra().kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: kafkaTopicPrefix(name),
    DATABASE_URL: await freshDatabase(t),
    REDIS_URL: infra().redisUrl,
    CONVERTER_GROUP_ID: uniqueName('converter'),
    GOVERNANCE_GROUP_ID: uniqueName('governance'),
    ...extra,
  };
}

/**
 * The settings of a whole pipeline (gateway, converter, indexer, extractor, read API) that answers
 * writes once stored: a long sync wait, the cheap hash embedding, the test's own consumer groups.
 */
export async function pipelineEnv(
  t: TestContext,
  name: string,
  extra: Record<string, string> = {},
): Promise<Record<string, string>> {
  return distributedEnv(t, name, {
    REQUEST_SYNC_TIMEOUT_MS: '15000',
    EMBEDDING_PROVIDER: 'hash',
    INDEXER_GROUP_ID: uniqueName('indexer'),
    EXTRACTOR_GROUP_ID: uniqueName('extractor'),
    ...extra,
  });
}

/**
 * Starts each service's entry point on a free port; resolves with their base URLs once all are
 * healthy. `own[i]`, when given, adds settings of the i-th service's own.
 */
export async function startServices(
  t: TestContext,
  env: Record<string, string>,
  services: string[],
  own: readonly Record<string, string>[] = [],
): Promise<string[]> {
  const started = await Promise.all(
    services.map((service, i) => startServing(t, mainOf(service), { ...env, ...own[i] })),
  );
  return started.map((s) => s.base);
}

/**
 * The API as the distributed mode serves it, `replicas` times: an ingest gateway (every family's
 * writes) and a read API (every family's reads) with an edge in front of them, as compose and
 * Kubernetes put one in front (harness/edge.ts: nginx with the edge's own configuration). Resolves with the edges'
 * addresses, each serving every API family, once the processes are healthy.
 */
export async function startApi(t: TestContext, env: Record<string, string>, replicas = 1): Promise<string[]> {
  const processes = await startServices(
    t,
    env,
    Array.from({ length: replicas }, () => ['ingest-gateway', 'read-api']).flat(),
  );
  return Promise.all(
    Array.from({ length: replicas }, async (_, i) => {
      const edge = await startEdge({ 'ingest-gateway': processes[2 * i]!, 'read-api': processes[2 * i + 1]! });
      t.after(() => edge.close());
      return edge.base;
    }),
  );
}
