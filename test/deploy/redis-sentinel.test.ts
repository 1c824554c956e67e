import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sentinelOptionsOf } from '@memstream/fanout';
import { ROOT } from './catalogue.js';
import { renderKustomization, type KubeObject } from './tools.js';

// What production's Redis must give memstream, checked on the OT-Container-Kit redis-operator's
// resources that k8s/overlays/prod describes. No registry ships the operator's schemas, so the
// fields used here are held to its API (redis.redis.opstreelabs.in/v1beta2) by hand: an unknown
// field is an error, as in the schema checks.
const KNOWN = {
  RedisReplication: [
    'clusterSize',
    'kubernetesConfig',
    'redisConfig',
    'storage',
    'podSecurityContext',
    'securityContext',
    'affinity',
    'tolerations',
    'nodeSelector',
    'topologySpreadConstraints',
    'pdb',
    'redisExporter',
  ],
  RedisSentinel: [
    'clusterSize',
    'kubernetesConfig',
    'redisSentinelConfig',
    'podSecurityContext',
    'securityContext',
    'affinity',
    'tolerations',
    'nodeSelector',
    'topologySpreadConstraints',
    'pdb',
    'redisExporter',
  ],
  kubernetesConfig: ['image', 'imagePullPolicy', 'resources', 'redisSecret', 'imagePullSecrets', 'updateStrategy'],
  redisSentinelConfig: [
    'redisReplicationName',
    'redisReplicationPassword',
    'masterGroupName',
    'redisPort',
    'quorum',
    'parallelSyncs',
    'failoverTimeout',
    'downAfterMilliseconds',
  ],
} as const;

interface Spec {
  clusterSize: number;
  kubernetesConfig: { image: string; redisSecret?: { name: string; key: string } } & Record<string, unknown>;
  redisSentinelConfig?: {
    redisReplicationName: string;
    masterGroupName?: string;
    quorum?: string;
    redisReplicationPassword?: { secretKeyRef?: { name: string; key: string } };
  } & Record<string, unknown>;
  pdb?: { enabled?: boolean; minAvailable?: number };
  affinity?: {
    podAntiAffinity?: {
      requiredDuringSchedulingIgnoredDuringExecution?: {
        topologyKey: string;
        labelSelector?: { matchLabels?: Record<string, string> };
      }[];
    };
  };
}
type Custom = KubeObject & { spec: Spec & Record<string, unknown> };

const objects = renderKustomization(join(ROOT, 'k8s', 'overlays', 'prod'));
const ofKind = (kind: string) =>
  objects.filter((o) => o.kind === kind && o.apiVersion === 'redis.redis.opstreelabs.in/v1beta2') as Custom[];
const replications = ofKind('RedisReplication');
const sentinels = ofKind('RedisSentinel');

const unknownFields = (fields: object | undefined, known: readonly string[]) =>
  Object.keys(fields ?? {}).filter((k) => !known.includes(k));

/** The operator's labels on its pods (app: the StatefulSet's name, role), which each anti-affinity must select. */
function spreadsOwnPods(owner: Custom, labels: Record<string, string>): void {
  const terms = owner.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
  assert.ok(
    terms.some(
      (t) =>
        t.topologyKey === 'kubernetes.io/hostname' &&
        Object.entries(t.labelSelector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v) &&
        Object.keys(t.labelSelector?.matchLabels ?? {}).length > 0,
    ),
    `${owner.kind}/${owner.metadata.name}: two pods may share a node`,
  );
}

test('production Redis is a master and a replica, watched by three sentinels of a majority quorum, each on a node of its own', () => {
  assert.equal(replications.length, 1);
  assert.equal(sentinels.length, 1);
  const [replication, sentinel] = [replications[0]!, sentinels[0]!];
  for (const r of [replication, sentinel]) {
    assert.equal(r.metadata.namespace, 'memstream');
    assert.deepEqual(unknownFields(r.spec, KNOWN[r.kind as 'RedisSentinel']), [], r.kind);
    assert.deepEqual(unknownFields(r.spec.kubernetesConfig, KNOWN.kubernetesConfig), [], r.kind);
    const image = r.spec.kubernetesConfig.image;
    assert.match(image.slice(image.lastIndexOf('/') + 1).split(':')[1] ?? '', /^v?\d+\.\d+/, `${image} is not pinned`);
    // the operator's budgets: a node can still be drained
    assert.ok(r.spec.pdb?.enabled === true && (r.spec.pdb.minAvailable ?? 0) < r.spec.clusterSize, r.kind);
  }
  assert.ok(replication.spec.clusterSize >= 2, 'a replica to promote');
  const config = sentinel.spec.redisSentinelConfig;
  assert.ok(config);
  assert.deepEqual(unknownFields(config, KNOWN.redisSentinelConfig), []);
  assert.equal(config.redisReplicationName, replication.metadata.name, 'the sentinels watch this replication');
  assert.ok(sentinel.spec.clusterSize >= 3 && sentinel.spec.clusterSize % 2 === 1, 'an odd number of sentinels');
  const quorum = Number(config.quorum ?? 2);
  assert.ok(quorum > sentinel.spec.clusterSize / 2 && quorum <= sentinel.spec.clusterSize, `quorum ${quorum}`);
  spreadsOwnPods(replication, { app: replication.metadata.name, role: 'replication' });
  spreadsOwnPods(sentinel, { app: `${sentinel.metadata.name}-sentinel`, role: 'sentinel' });
  assert.deepEqual(
    config.redisReplicationPassword?.secretKeyRef,
    replication.spec.kubernetesConfig.redisSecret,
    "the sentinels reach the servers with the servers' password",
  );
});

test("every process asks the sentinels' Service for the master they watch, with the servers' password", () => {
  const [replication, sentinel] = [replications[0]!, sentinels[0]!];
  const secret = replication.spec.kubernetesConfig.redisSecret;
  assert.ok(secret, 'the Redis servers ask for no password');
  const instructions = readFileSync(join(ROOT, 'k8s', 'overlays', 'prod', 'kustomization.yaml'), 'utf8');
  assert.match(
    instructions,
    new RegExp(`create secret generic ${secret.name} --from-literal=${secret.key}=`),
    `the instructions do not make the Secret ${secret.name}`,
  );
  const literal = /--from-literal=REDIS_URL="([^"]+)"/.exec(instructions)?.[1];
  assert.ok(literal, 'the instructions give no REDIS_URL');
  const read = `$(kubectl -n memstream get secret ${secret.name} -o jsonpath='{.data.${secret.key}}' | base64 -d)`;
  assert.ok(literal.includes(read), `REDIS_URL does not take the password from ${secret.name}`);
  const options = sentinelOptionsOf(literal.replace(read, 'a-password'));
  assert.ok(options, 'REDIS_URL names one server, not the sentinels');
  assert.equal(options.password, 'a-password');
  assert.equal(options.name, sentinel.spec.redisSentinelConfig?.masterGroupName ?? 'myMaster');
  assert.deepEqual(options.sentinels, [
    { host: `${sentinel.metadata.name}-sentinel.${sentinel.metadata.namespace}.svc`, port: 26379 },
  ]);
});
