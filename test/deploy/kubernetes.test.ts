import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { parseAllDocuments } from 'yaml';
import { TOPICS, allTopics, consumerGroupsOf, type PipelineGroupIds } from '@memstream/schemas';
import {
  API_CREDENTIALS,
  AUTH_SETTINGS,
  LOOPBACK_HOSTS,
  OPEN_PATH,
  ROOT,
  effectiveConfig,
  envProblems,
  exposureOf,
  isApiProcess,
  longRunningServices,
} from './catalogue.js';
import { Rendered, preStopSeconds } from './rendered.js';
import { renderKustomization, validateKubernetes, type KubeObject } from './tools.js';

const KUSTOMIZATIONS = ['k8s/base', ...readdirSync(join(ROOT, 'k8s', 'overlays')).map((o) => `k8s/overlays/${o}`)];

/** What a Deployment's pods are to the autoscaling rules: labelled by app.kubernetes.io/component. */
type Role = 'api' | 'edge' | 'consumer';

for (const dir of KUSTOMIZATIONS) {
  describe(dir, () => {
    const objects = renderKustomization(join(ROOT, dir));
    const k8s = new Rendered(objects);
    const memstream = k8s.memstreamContainers();
    const configOf = (c: (typeof memstream)[number]) => effectiveConfig(c.service, k8s.environmentOf(c.container).env);
    const roleOf = (labels: Record<string, string> | undefined): Role => {
      const role = labels?.['app.kubernetes.io/component'];
      assert.ok(
        role === 'api' || role === 'edge' || role === 'consumer',
        `component label ${role} is not api, edge or consumer`,
      );
      return role;
    };

    test('every object is valid against the Kubernetes schemas, unknown fields included', () => {
      const verdicts = validateKubernetes(objects);
      assert.equal(verdicts.length, objects.length);
      // custom resources, each checked by a test of its own: KEDA's (below), CloudNativePG's
      // (postgres-cluster.test.ts), Strimzi's (strimzi.test.ts), the redis-operator's (redis-sentinel.test.ts)
      const custom = new Set([
        'ScaledObject',
        'Cluster',
        'Kafka',
        'KafkaNodePool',
        'RedisReplication',
        'RedisSentinel',
      ]);
      const failures = verdicts.filter(
        (v) => v.status === 'invalid' || (v.status === 'no-schema' && !custom.has(v.kind)),
      );
      assert.deepEqual(failures, []);
      assert.ok(
        verdicts.filter((v) => v.status === 'valid').length >=
          objects.length - objects.filter((o) => custom.has(o.kind)).length,
      );
    });

    test('every ScaledObject is valid against the KEDA schema', () => {
      for (const so of k8s.scaledObjects) {
        assert.doesNotThrow(() => new ScaledObject(so).validate(), `ScaledObject/${so.metadata?.name}`);
      }
    });

    test('every image is pinned to a version', () => {
      const pods = k8s.pods();
      const statefulSets = objects.filter((o) => o.kind === 'StatefulSet') as (KubeObject & {
        spec: { template: { spec: { containers: { image: string }[] } } };
      })[];
      const images = [
        ...pods.flatMap((p) => p.containers),
        ...statefulSets.flatMap((s) => s.spec.template.spec.containers),
      ].map((c) => c.image ?? '');
      assert.ok(images.length > 0);
      for (const image of images) {
        const tag = image.includes('@') ? 'digest' : image.slice(image.lastIndexOf('/') + 1).split(':')[1];
        assert.ok(tag !== undefined && tag !== '' && tag !== 'latest', `image ${image} is not pinned`);
      }
    });

    test('every memstream service runs in a Deployment, and a Job sets up topics and migrations', () => {
      const byService = new Map(memstream.map((c) => [c.service, c.owner]));
      for (const service of longRunningServices()) {
        assert.match(byService.get(service) ?? '', /^Deployment\//, `${service} has no Deployment`);
      }
      assert.match(byService.get('setup') ?? '', /^Job\//, 'no Job runs setup');
    });

    test('each memstream container is given every setting its service needs and none it does not read', () => {
      assert.ok(memstream.length >= 5);
      for (const c of memstream) {
        const { env, problems } = k8s.environmentOf(c.container);
        const all = [...problems, ...envProblems(c.service, env)];
        assert.deepEqual(all, [], `${c.owner}:\n${all.join('\n')}`);
      }
    });

    test('the API processes read their credentials from the Secret memstream-secrets, and no manifest holds them', () => {
      const apis = memstream.filter((c) => isApiProcess(c.service));
      assert.deepEqual(apis.map((c) => c.service).sort(), ['ingest-gateway', 'read-api']);
      for (const c of apis) {
        for (const key of API_CREDENTIALS) {
          const ref = c.container.env?.find((v) => v.name === key)?.valueFrom?.secretKeyRef;
          assert.ok(ref, `${c.owner}: ${key} is not read from a Secret`);
          // a generated Secret's name carries kustomize's hash
          assert.match(
            ref.name ?? '',
            /^memstream-secrets(-[a-z0-9]+)?$/,
            `${c.owner}: ${key} from Secret ${ref.name}`,
          );
          assert.equal(ref.key, key, `${c.owner}: ${key} from key ${ref.key}`);
          assert.notEqual(ref.optional, true, `${c.owner}: ${key} is optional, so the pod would start without it`);
        }
      }
      for (const variable of k8s
        .pods()
        .flatMap((p) => p.containers)
        .flatMap((c) => c.env ?? [])) {
        assert.ok(
          !AUTH_SETTINGS.includes(variable.name) || variable.value === undefined,
          `${variable.name} has a value in the manifest`,
        );
      }
      for (const configMap of objects.filter((o) => o.kind === 'ConfigMap') as (KubeObject & {
        data?: Record<string, string>;
      })[]) {
        const held = Object.keys(configMap.data ?? {}).filter((key) => AUTH_SETTINGS.includes(key));
        assert.deepEqual(held, [], `ConfigMap/${configMap.metadata.name} holds ${held.join(', ')}`);
      }
      if (dir !== 'k8s/overlays/dev') {
        const secrets = objects.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name);
        assert.deepEqual(
          secrets,
          [],
          "only the dev overlay generates a Secret (development values); the others refer to the operator's",
        );
      }
    });

    test('the API processes listen beyond loopback, where probes and the edge reach them, with authentication on', () => {
      const apis = memstream.filter((c) => isApiProcess(c.service));
      assert.ok(apis.length >= 2);
      for (const c of apis) {
        const { host, authenticated } = exposureOf(c.service, k8s.environmentOf(c.container).env);
        assert.ok(authenticated, `${c.owner}: callers need no credentials`);
        assert.ok(
          !LOOPBACK_HOSTS.has(host),
          `${c.owner} listens on ${host}, which neither the kubelet nor the edge can reach`,
        );
      }
    });

    test('consumers are given no API credentials: they serve only probes and metrics', () => {
      const others = memstream.filter((c) => !isApiProcess(c.service));
      assert.ok(others.length >= 4);
      for (const c of others) {
        const given = Object.keys(k8s.environmentOf(c.container).env).filter((key) => AUTH_SETTINGS.includes(key));
        assert.deepEqual(given, [], `${c.owner} is given ${given.join(', ')}`);
      }
    });

    test('every probe and scrape of a memstream pod asks a path that needs no credentials', () => {
      for (const d of k8s.deployments) {
        const template = d.spec!.template;
        const scrape = template.metadata?.annotations?.['prometheus.io/path'];
        if (scrape !== undefined) assert.match(scrape, OPEN_PATH, `Deployment/${d.metadata!.name}: scrapes ${scrape}`);
        for (const c of memstream.filter((m) => m.pod === template.spec)) {
          const probes = [c.container.startupProbe, c.container.livenessProbe, c.container.readinessProbe].filter(
            (p) => p !== undefined,
          );
          assert.ok(probes.length > 0, `${c.owner}: no probes`);
          for (const probe of probes) {
            assert.ok(probe.httpGet, `${c.owner}: a probe that is not an HTTP GET`);
            assert.match(probe.httpGet.path ?? '/', OPEN_PATH, `${c.owner}: probes ${probe.httpGet.path}`);
          }
        }
      }
    });

    test('every memstream container uses the brokers, topic prefix and partitions the setup job creates', () => {
      const pick = (config: Record<string, unknown>) => ({
        brokers: config['KAFKA_BROKERS'],
        prefix: config['KAFKA_TOPIC_PREFIX'],
        partitions: config['KAFKA_TOPIC_PARTITIONS'],
      });
      const setup = memstream.find((c) => c.service === 'setup');
      assert.ok(setup);
      for (const c of memstream) assert.deepEqual(pick(configOf(c)), pick(configOf(setup)), c.owner);
    });

    test('every Deployment has probes, resource requests and limits, and runs as non-root', () => {
      assert.ok(k8s.deployments.length >= 5);
      for (const d of k8s.deployments) {
        const pod = d.spec!.template.spec!;
        for (const c of pod.containers) {
          const where = `Deployment/${d.metadata!.name}/${c.name}`;
          assert.ok(c.livenessProbe, `${where}: no liveness probe`);
          assert.ok(c.readinessProbe, `${where}: no readiness probe`);
          for (const kind of ['requests', 'limits'] as const) {
            for (const resource of ['cpu', 'memory'])
              assert.ok(c.resources?.[kind]?.[resource], `${where}: no ${resource} ${kind}`);
          }
          assert.equal(
            c.securityContext?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot,
            true,
            `${where}: may run as root`,
          );
        }
      }
    });

    test('every pod has longer to stop than its preStop pause plus the shutdown deadline', () => {
      for (const d of k8s.deployments) {
        const pod = d.spec!.template.spec!;
        const grace = pod.terminationGracePeriodSeconds ?? 30;
        for (const c of pod.containers) {
          const own = memstream.find((m) => m.container === c);
          const deadlineSeconds = own ? Number(configOf(own)['SHUTDOWN_TIMEOUT_MS']) / 1000 : 0;
          const needed = preStopSeconds(c) + deadlineSeconds;
          assert.ok(
            grace > needed,
            `Deployment/${d.metadata!.name}: terminationGracePeriodSeconds ${grace} is not above ${needed} s`,
          );
        }
      }
    });

    test('every Deployment has one PodDisruptionBudget, one Service, and one autoscaler that owns its replica count', () => {
      for (const d of k8s.deployments) {
        const name = `Deployment/${d.metadata!.name}`;
        assert.equal(k8s.pdbsOf(d).length, 1, `${name}: PodDisruptionBudgets`);
        const services = k8s.servicesOf(d);
        assert.equal(services.length, 1, `${name}: Services`);
        const ports = new Set(
          d.spec!.template.spec!.containers.flatMap((c) => (c.ports ?? []).flatMap((p) => [p.name, p.containerPort])),
        );
        for (const p of services[0]!.spec!.ports ?? [])
          assert.ok(ports.has(p.targetPort ?? p.port), `${name}: Service port ${p.name} targets no container port`);
        const { hpas, scaledObjects } = k8s.autoscalersOf(d);
        assert.equal(hpas.length + scaledObjects.length, 1, `${name}: autoscalers`);
        // a replica count in the Deployment would reset the autoscaler's on every apply
        assert.equal(d.spec!.replicas, undefined, `${name} sets replicas`);
      }
    });

    test('HTTP services scale on CPU, consumers on the lag of their consumer groups (KEDA)', () => {
      for (const d of k8s.deployments) {
        const name = `Deployment/${d.metadata!.name}`;
        const { hpas, scaledObjects } = k8s.autoscalersOf(d);
        if (roleOf(d.spec!.template.metadata?.labels) === 'consumer') {
          assert.equal(scaledObjects.length, 1, `${name}: a consumer scales with a ScaledObject`);
          const triggers = scaledObjects[0]!.spec.triggers;
          assert.ok(
            triggers.length > 0 && triggers.every((t) => t.type === 'kafka'),
            `${name}: triggers must be Kafka lag`,
          );
        } else {
          assert.equal(hpas.length, 1, `${name}: an HTTP service scales with a HorizontalPodAutoscaler`);
          const metrics = hpas[0]!.spec!.metrics ?? [];
          assert.ok(
            metrics.some((m) => m.type === 'Resource' && m.resource?.name === 'cpu'),
            `${name}: no CPU metric`,
          );
          assert.ok(hpas[0]!.spec!.maxReplicas >= (hpas[0]!.spec!.minReplicas ?? 1));
        }
      }
    });

    test('no consumer can have more replicas than its topics have partitions', () => {
      const consumers = k8s.deployments.filter((d) => roleOf(d.spec!.template.metadata?.labels) === 'consumer');
      assert.ok(consumers.length >= 2);
      for (const d of consumers) {
        const name = `Deployment/${d.metadata!.name}`;
        const own = memstream.find((m) => m.owner === name);
        assert.ok(own, `${name} runs no memstream service`);
        const partitions = Number(configOf(own)['KAFKA_TOPIC_PARTITIONS']);
        const { hpas, scaledObjects } = k8s.autoscalersOf(d);
        for (const so of scaledObjects) {
          // KEDA's default maximum is 100: it has to be stated
          assert.ok(so.spec.maxReplicaCount !== undefined, `${name}: the ScaledObject states no maxReplicaCount`);
          assert.ok(
            so.spec.maxReplicaCount <= partitions,
            `${name}: maxReplicaCount ${so.spec.maxReplicaCount} > ${partitions} partitions`,
          );
          assert.ok(
            (so.spec.minReplicaCount ?? 0) <= so.spec.maxReplicaCount,
            `${name}: minReplicaCount above the maximum`,
          );
        }
        for (const hpa of hpas)
          assert.ok(hpa.spec!.maxReplicas <= partitions, `${name}: maxReplicas above ${partitions} partitions`);
        assert.ok((d.spec!.replicas ?? 1) <= partitions);
      }
    });

    test("consumer triggers watch the service's own brokers, topics and consumer groups", () => {
      for (const so of k8s.scaledObjects) {
        const name = `ScaledObject/${so.metadata?.name}`;
        const own = memstream.find((m) => m.owner === `Deployment/${so.spec.scaleTargetRef.name}`);
        assert.ok(own, `${name} scales no memstream Deployment`);
        const config = configOf(own);
        const brokers = (config['KAFKA_BROKERS'] as string[]).join(',');
        const topics = new Set(allTopics().map((t) => `${String(config['KAFKA_TOPIC_PREFIX'])}${t.name}`));
        const groupIds = Object.fromEntries(
          Object.entries(config)
            .filter(([key]) => key.endsWith('_GROUP_ID'))
            .map(([key, value]) => [key, String(value)]),
        ) as Partial<PipelineGroupIds>;
        assert.ok(Object.keys(groupIds).length > 0, `${own.service} has no *_GROUP_ID setting`);
        const topicKeyOf = new Map(
          (Object.keys(TOPICS) as (keyof typeof TOPICS)[]).map((k) => [
            `${String(config['KAFKA_TOPIC_PREFIX'])}${TOPICS[k].name}`,
            k,
          ]),
        );
        for (const trigger of so.spec.triggers) {
          const meta = trigger.metadata as Record<string, string>;
          assert.equal(meta['bootstrapServers'], brokers, `${name}: bootstrapServers is not KAFKA_BROKERS`);
          if (so.metadata?.namespace !== undefined) {
            // KEDA's operator connects from its own namespace, where a bare Service name means nothing
            for (const broker of brokers.split(','))
              assert.match(broker, /^[^:]+\.[^:]+:\d+$/, `${name}: ${broker} is not namespace-qualified`);
          }
          assert.ok(topics.has(meta['topic'] ?? ''), `${name}: ${meta['topic']} is not a memstream topic`);
          // the groups its services subscribe in on that topic, as consumerGroup names them
          const key = topicKeyOf.get(meta['topic'] ?? '');
          assert.ok(key, `${name}: ${meta['topic']} is no topic consumers read`);
          const groups = consumerGroupsOf(key, groupIds);
          const group = meta['consumerGroup'] ?? '';
          assert.ok(groups.includes(group), `${name}: group ${group} is none of ${groups.join(', ')}`);
        }
      }
    });
  });
}

describe('the Secret the operator creates (kubectl create secret in the comments)', () => {
  const prod = new Rendered(renderKustomization(join(ROOT, 'k8s', 'overlays', 'prod')));
  const pods = prod.pods();
  const needed = new Set(
    pods
      .flatMap((p) => p.containers)
      .flatMap((c) => c.env ?? [])
      .map((v) => v.valueFrom?.secretKeyRef)
      .filter((ref) => ref !== undefined && ref.name === 'memstream-secrets' && ref.optional !== true)
      .map((ref) => ref!.key),
  );
  for (const file of ['k8s/base/kustomization.yaml', 'k8s/overlays/prod/kustomization.yaml']) {
    test(`the instructions of ${file} give every key of memstream-secrets a pod cannot start without`, () => {
      const instructed = new Set(
        [...readFileSync(join(ROOT, file), 'utf8').matchAll(/--from-literal=([A-Z_]+)=/g)].map((m) => m[1]),
      );
      assert.ok(needed.has('DATABASE_URL'));
      for (const key of needed) assert.ok(instructed.has(key), `--from-literal=${key}=... is missing`);
    });
  }
});

test('the ARK Memory example calls as an agent, with a key from a Secret of its own', () => {
  const docs = parseAllDocuments(readFileSync(join(ROOT, 'k8s', 'examples', 'ark-memory.yaml'), 'utf8')).map(
    (d) =>
      d.toJS() as {
        kind: string;
        spec: {
          headers?: {
            name: string;
            value: { value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };
          }[];
        };
      },
  );
  const headers = docs.find((d) => d.kind === 'Memory')?.spec.headers ?? [];
  // the headers the authenticator reads (libs/auth/src/authenticator.ts)
  const credential = headers.find((h) => ['x-api-key', 'authorization'].includes(h.name.toLowerCase()));
  assert.ok(credential, 'the Memory sends no X-API-Key or Authorization header');
  assert.equal(credential.value.value, undefined, 'the key is written into the example');
  const ref = credential.value.valueFrom?.secretKeyRef;
  assert.ok(ref, 'the key does not come from a Secret');
  // memstream-secrets holds every client's key in one list, never one header value
  assert.notEqual(ref.name, 'memstream-secrets');
});

test('the ARK Memory example points at the edge Service, which sends each ARK call to the process that serves it', () => {
  const base = new Rendered(renderKustomization(join(ROOT, 'k8s', 'base')));
  const docs = parseAllDocuments(readFileSync(join(ROOT, 'k8s', 'examples', 'ark-memory.yaml'), 'utf8')).map(
    (d) =>
      d.toJS() as { kind: string; spec: { address?: { valueFrom?: { serviceRef?: { name: string; port: number } } } } },
  );
  const ref = docs.find((d) => d.kind === 'Memory')?.spec.address?.valueFrom?.serviceRef;
  assert.ok(ref, 'no Memory with a serviceRef');
  const service = base.serviceNamed(ref.name);
  assert.ok(service, `no Service ${ref.name}`);
  assert.ok(
    (service.spec!.ports ?? []).some((p) => p.port === ref.port),
    `Service ${ref.name} has no port ${ref.port}`,
  );
  const behind = base.deploymentBehind(service);
  assert.equal(behind?.metadata?.name, 'edge');
});
