import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ROOT } from './catalogue.js';
import { Rendered } from './rendered.js';
import { renderKustomization, type KubeObject } from './tools.js';

// What production's PostgreSQL must give memstream, checked on the CloudNativePG Cluster that
// k8s/overlays/prod describes (no JSON schema of the operator's resources ships in a registry).

interface CnpgCluster extends KubeObject {
  spec: {
    instances: number;
    imageName: string;
    postgresql: {
      synchronous?: { method: string; number: number; dataDurability?: string };
      parameters?: Record<string, string>;
    };
    bootstrap: { initdb: { database: string; postInitApplicationSQL?: string[] } };
    affinity?: { enablePodAntiAffinity?: boolean; topologyKey?: string; podAntiAffinityType?: string };
    storage: { size: string };
  };
}

const objects = renderKustomization(join(ROOT, 'k8s', 'overlays', 'prod'));
const clusters = objects.filter(
  (o): o is CnpgCluster => o.kind === 'Cluster' && o.apiVersion === 'postgresql.cnpg.io/v1',
);

test('production PostgreSQL is one CloudNativePG Cluster of three instances on three nodes', () => {
  assert.equal(clusters.length, 1);
  const { metadata, spec } = clusters[0]!;
  assert.equal(metadata.namespace, 'memstream');
  assert.ok(spec.instances >= 3, `${spec.instances} instances`);
  assert.equal(spec.affinity?.enablePodAntiAffinity, true);
  assert.equal(spec.affinity?.topologyKey, 'kubernetes.io/hostname');
  assert.equal(spec.affinity?.podAntiAffinityType, 'required', 'two instances never share a node');
  assert.ok(spec.storage.size);
});

test('a commit is answered once a standby has it, and never by the primary alone', () => {
  const sync = clusters[0]!.spec.postgresql.synchronous;
  assert.ok(sync, 'synchronous replication is configured');
  assert.ok(sync.number >= 1 && sync.number < clusters[0]!.spec.instances);
  assert.equal(sync.dataDurability ?? 'required', 'required');
});

test('the image is pinned, and the application database has pgvector before the migrations run', () => {
  const { imageName, bootstrap } = clusters[0]!.spec;
  const tag = imageName.slice(imageName.lastIndexOf('/') + 1).split(':')[1];
  assert.match(tag ?? '', /^\d+\.\d+/, `image ${imageName} is not pinned to a PostgreSQL release`);
  assert.equal(bootstrap.initdb.database, 'memstream');
  assert.ok(
    (bootstrap.initdb.postInitApplicationSQL ?? []).some((sql) => /CREATE EXTENSION IF NOT EXISTS vector/i.test(sql)),
  );
});

test("the instructions take DATABASE_URL from the operator's app Secret, which names the -rw Service", () => {
  const name = clusters[0]!.metadata.name;
  const instructions = readFileSync(join(ROOT, 'k8s', 'overlays', 'prod', 'kustomization.yaml'), 'utf8');
  assert.match(
    instructions,
    new RegExp(`--from-literal=DATABASE_URL="\\$\\(kubectl -n memstream get secret ${name}-app `),
  );
  assert.match(instructions, new RegExp(`wait cluster/${name} --for=condition=Ready`));
});

test("the read API, and only it, reads from the replicas behind the Cluster's -ro Service", () => {
  const { name } = clusters[0]!.metadata;
  const k8s = new Rendered(objects);
  const given = k8s
    .memstreamContainers()
    .filter((c) => c.container.env?.some((v) => v.name === 'DATABASE_REPLICA_URLS'))
    .map((c) => c.owner);
  assert.deepEqual(given, ['Deployment/read-api'], 'the write path always reads the primary');
  const readApi = k8s.memstreamContainers().find((c) => c.owner === 'Deployment/read-api')!;
  const ref = readApi.container.env!.find((v) => v.name === 'DATABASE_REPLICA_URLS')!.valueFrom?.secretKeyRef;
  assert.equal(ref?.name, 'memstream-secrets');
  assert.notEqual(ref?.optional, true, 'a read API left without its replicas would load the primary unnoticed');
  // the application's connection string, with the primary's Service swapped for the replicas'
  const instructions = readFileSync(join(ROOT, 'k8s', 'overlays', 'prod', 'kustomization.yaml'), 'utf8');
  const derivation =
    /--from-literal=DATABASE_REPLICA_URLS="\$\(kubectl -n memstream get secret (\S+) -o jsonpath='\{\.data\.uri\}' \| base64 -d \| sed 's\/@(\S+)\/@(\S+)\/'\)"/.exec(
      instructions,
    );
  assert.ok(derivation, "the instructions do not derive DATABASE_REPLICA_URLS from the Cluster's app Secret");
  assert.deepEqual(derivation.slice(1), [`${name}-app`, `${name}-rw`, `${name}-ro`]);
});

test("a read on a replica is not cancelled by the replay of the primary's vacuum", () => {
  assert.equal(clusters[0]!.spec.postgresql.parameters?.['hot_standby_feedback'], 'on');
});
