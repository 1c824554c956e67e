import assert from 'node:assert/strict';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { waitFor } from '../helpers/infra.js';
import { KAFKA_NODES, type PrivateInfra } from './private-infra.js';
import type { Pipeline } from './pipeline.js';
import type { SteadyLoad } from './steady-load.js';

/** A fault of the suite that may watch the load to know when the fault has taken hold. */
export interface LoadFault {
  readonly name: string;
  inject(pipeline: Pipeline, load: SteadyLoad): Promise<void>;
}

/**
 * The Kafka rows of the fault suite, on the suite's three brokers: one broker lost (its
 * partitions' leadership must move and writes go on), then two lost (the one left cannot hold a
 * write on two replicas, so writes must be refused with 503 and Retry-After, never hang).
 */
export function kafkaFaults(infra: PrivateInfra): LoadFault[] {
  return [
    {
      name: 'one Kafka broker of three SIGKILLed (the busiest leader), then restarted',
      async inject(pipeline) {
        const prefix = pipeline.env['KAFKA_TOPIC_PREFIX']!;
        await withAdmin(infra, async (admin) => {
          await assertReplicated(admin, prefix);
          const victim = await busiestLeader(admin, prefix);
          await infra.killBroker(victim);
          // Condition, not a pause: every partition has a leader again, none of them the dead broker.
          await waitFor(
            `leadership to move off broker ${victim}`,
            async () => ((await leaders(admin, prefix)).every((l) => l >= 0 && l !== victim) ? true : undefined),
            60_000,
          );
          await infra.upBroker(victim);
          await inSync(admin);
        });
      },
    },
    {
      name: 'two Kafka brokers of three SIGKILLed: writes refused with 503 + Retry-After, then both restarted',
      async inject(_pipeline, load) {
        const killedAt = Date.now();
        await infra.killBroker(2);
        await infra.killBroker(3);
        const refusalsAfterKill = () =>
          load.records.filter((r) => r.startedAt >= killedAt && r.status === 503 && r.retryAfter).length;
        // Refused for a while, both kinds of HTTP write: what a client sees while the cluster cannot hold a copy.
        await waitFor('writes refused with 503', async () => (refusalsAfterKill() >= 10 ? true : undefined), 60_000);
        await Promise.all([infra.upBroker(2), infra.upBroker(3)]);
        await withAdmin(infra, inSync);
      },
    },
  ];
}

async function withAdmin<T>(infra: PrivateInfra, work: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = new Kafka({
    brokers: infra.kafkaBrokers.split(','),
    clientId: 'fault-admin',
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Restarted means back in sync: every partition, the group coordinator's too, has all its replicas
 * in sync again. The next row's services join their groups only then (a coordinator whose
 * partition has fewer than min.insync.replicas in sync cannot store a group).
 */
async function inSync(admin: Admin): Promise<void> {
  await waitFor(
    'every replica back in sync',
    async () => {
      const { topics } = await admin.fetchTopicMetadata({ topics: await admin.listTopics() });
      return topics.every((t) => t.partitions.every((p) => p.isr.length === p.replicas.length)) ? true : undefined;
    },
    120_000,
  );
}

async function topicsOf(admin: Admin, prefix: string): Promise<string[]> {
  return (await admin.listTopics()).filter((t) => t.startsWith(prefix));
}

/** The leader of every partition of the run's topics (-1: none). */
async function leaders(admin: Admin, prefix: string): Promise<number[]> {
  const { topics } = await admin.fetchTopicMetadata({ topics: await topicsOf(admin, prefix) });
  return topics.flatMap((t) => t.partitions.map((p) => p.leader));
}

async function busiestLeader(admin: Admin, prefix: string): Promise<number> {
  const counts = new Map<number, number>();
  for (const l of await leaders(admin, prefix)) counts.set(l, (counts.get(l) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
}

/**
 * The topics the services created with KAFKA_REPLICATION_FACTOR unset follow the cluster: a copy
 * on each broker, and a write acknowledged once two hold it.
 */
async function assertReplicated(admin: Admin, prefix: string): Promise<void> {
  const names = await topicsOf(admin, prefix);
  const { topics } = await admin.fetchTopicMetadata({ topics: names });
  const replicas = new Set(topics.flatMap((t) => t.partitions.map((p) => p.replicas.length)));
  assert.deepEqual([...replicas], [KAFKA_NODES], 'every partition of every topic on every broker');
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: names.map((name) => ({ type: 2 /* a topic */, name })),
  });
  const minInsync = new Set(
    resources.map((r) => r.configEntries.find((e) => e.configName === 'min.insync.replicas')?.configValue),
  );
  assert.deepEqual([...minInsync], ['2'], 'min.insync.replicas=2 on every topic');
}
