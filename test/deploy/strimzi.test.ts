import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ROOT, effectiveConfig } from './catalogue.js';
import { Rendered } from './rendered.js';
import { renderKustomization, type KubeObject } from './tools.js';

// No registry ships Strimzi's schemas, so the fields used here are held to its API reference by
// hand (v1beta2, KRaft with node pools): an unknown field is an error, as in the schema checks.
const KNOWN = {
  KafkaNodePool: ['replicas', 'roles', 'storage', 'resources', 'jvmOptions', 'template'],
  Kafka: ['kafka', 'entityOperator', 'cruiseControl', 'kafkaExporter'],
  'Kafka.kafka': [
    'version',
    'metadataVersion',
    'listeners',
    'config',
    'authorization',
    'rack',
    'template',
    'resources',
    'jvmOptions',
    'metricsConfig',
    'logging',
  ],
} as const;

type Custom = KubeObject & { spec: Record<string, unknown> };

const objects = renderKustomization(join(ROOT, 'k8s', 'overlays', 'prod'));
const pools = objects.filter((o) => o.kind === 'KafkaNodePool') as Custom[];
const clusters = objects.filter((o) => o.kind === 'Kafka') as Custom[];

function unknownFields(spec: Record<string, unknown>, known: readonly string[]): string[] {
  return Object.keys(spec).filter((k) => !known.includes(k));
}

test('the prod overlay runs Kafka by Strimzi: three nodes, each broker and KRaft controller, with persistent storage', () => {
  assert.equal(clusters.length, 1);
  const cluster = clusters[0]!;
  assert.equal(cluster.apiVersion, 'kafka.strimzi.io/v1beta2');
  assert.deepEqual(unknownFields(cluster.spec, KNOWN.Kafka), []);
  assert.deepEqual(unknownFields(cluster.spec['kafka'] as Record<string, unknown>, KNOWN['Kafka.kafka']), []);
  assert.equal(cluster.metadata.annotations?.['strimzi.io/kraft'], 'enabled');
  assert.equal(cluster.metadata.annotations?.['strimzi.io/node-pools'], 'enabled');
  const ofCluster = pools.filter((p) => p.metadata.labels?.['strimzi.io/cluster'] === cluster.metadata.name);
  assert.equal(ofCluster.length, pools.length, 'every node pool belongs to the cluster');
  for (const pool of ofCluster) {
    assert.equal(pool.apiVersion, 'kafka.strimzi.io/v1beta2');
    assert.equal(pool.metadata.namespace, cluster.metadata.namespace);
    assert.deepEqual(unknownFields(pool.spec, KNOWN.KafkaNodePool), []);
    const storage = pool.spec['storage'] as { type: string; volumes?: { type: string }[] };
    const volumes = storage.type === 'jbod' ? (storage.volumes ?? []) : [storage];
    assert.ok(
      volumes.length > 0 && volumes.every((v) => v.type === 'persistent-claim'),
      'state on disks that outlive pods',
    );
  }
  const nodes = (role: string) =>
    ofCluster
      .filter((p) => (p.spec['roles'] as string[]).includes(role))
      .reduce((n, p) => n + Number(p.spec['replicas']), 0);
  assert.ok(nodes('broker') >= 3, 'three brokers or more');
  assert.equal(nodes('controller') % 2, 1, 'an odd quorum');
  assert.ok(nodes('controller') >= 3, 'a quorum that survives a node');
});

test('every topic is on three brokers and a write is acknowledged once two hold it; memstream bootstraps from the cluster', () => {
  const cluster = clusters[0]!;
  const kafka = cluster.spec['kafka'] as {
    config: Record<string, unknown>;
    listeners: { name: string; port: number; tls: boolean }[];
  };
  assert.equal(kafka.config['default.replication.factor'], 3);
  assert.equal(kafka.config['offsets.topic.replication.factor'], 3);
  assert.equal(kafka.config['transaction.state.log.replication.factor'], 3);
  assert.equal(kafka.config['min.insync.replicas'], 2);
  assert.equal(kafka.config['transaction.state.log.min.isr'], 2);
  assert.equal(kafka.config['unclean.leader.election.enable'], false);
  const plain = kafka.listeners.find((l) => !l.tls);
  assert.ok(plain);
  // Strimzi's bootstrap Service, namespace-qualified (KEDA connects from its own namespace)
  const bootstrap = `${cluster.metadata.name}-kafka-bootstrap.${cluster.metadata.namespace}.svc:${plain.port}`;
  const k8s = new Rendered(objects);
  for (const c of k8s.memstreamContainers()) {
    const config = effectiveConfig(c.service, k8s.environmentOf(c.container).env);
    assert.deepEqual(config['KAFKA_BROKERS'], [bootstrap], c.owner);
    assert.equal(config['KAFKA_REPLICATION_FACTOR'] ?? 3, 3, `${c.owner} creates topics on three brokers`);
  }
});
