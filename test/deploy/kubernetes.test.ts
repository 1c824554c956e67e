import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { parseAllDocuments } from 'yaml';
import { allTopics } from '@memstream/schemas';
import { ROOT, effectiveConfig, envProblems, longRunningServices } from './catalogue.js';
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
      assert.ok(role === 'api' || role === 'edge' || role === 'consumer', `component label ${role} is not api, edge or consumer`);
      return role;
    };

    test('every object is valid against the Kubernetes schemas, unknown fields included', () => {
      const verdicts = validateKubernetes(objects);
      assert.equal(verdicts.length, objects.length);
      const custom = new Set(['ScaledObject']);
      const failures = verdicts.filter((v) => v.status === 'invalid' || (v.status === 'no-schema' && !custom.has(v.kind)));
      assert.deepEqual(failures, []);
      assert.ok(verdicts.filter((v) => v.status === 'valid').length >= objects.length - k8s.scaledObjects.length);
    });

    test('every ScaledObject is valid against the KEDA schema', () => {
      for (const so of k8s.scaledObjects) {
        assert.doesNotThrow(() => new ScaledObject(so).validate(), `ScaledObject/${so.metadata?.name}`);
      }
    });

    test('every image is pinned to a version', () => {
      const pods = [...k8s.deployments.map((d) => d.spec!.template.spec!), ...k8s.jobs.map((j) => j.spec!.template.spec!)];
      const statefulSets = objects.filter((o) => o.kind === 'StatefulSet') as (KubeObject & { spec: { template: { spec: { containers: { image: string }[] } } } })[];
      const images = [...pods.flatMap((p) => p.containers), ...statefulSets.flatMap((s) => s.spec.template.spec.containers)].map((c) => c.image ?? '');
      assert.ok(images.length > 0);
      for (const image of images) {
        const tag = image.includes('@') ? 'digest' : image.slice(image.lastIndexOf('/') + 1).split(':')[1];
        assert.ok(tag !== undefined && tag !== '' && tag !== 'latest', `image ${image} is not pinned`);
      }
    });

    test('every memstream service runs in a Deployment, and a Job sets up topics and migrations', () => {
      const byService = new Map(memstream.map((c) => [c.service, c.owner]));
      for (const service of longRunningServices()) {
        assert.match(byService.get(service) ?? '', /^Deployment\//, `services/${service} has no Deployment`);
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
            for (const resource of ['cpu', 'memory']) assert.ok(c.resources?.[kind]?.[resource], `${where}: no ${resource} ${kind}`);
          }
          assert.equal(c.securityContext?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot, true, `${where}: may run as root`);
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
          assert.ok(grace > needed, `Deployment/${d.metadata!.name}: terminationGracePeriodSeconds ${grace} is not above ${needed} s`);
        }
      }
    });

    test('every Deployment has one PodDisruptionBudget, one Service, and one autoscaler that owns its replica count', () => {
      for (const d of k8s.deployments) {
        const name = `Deployment/${d.metadata!.name}`;
        assert.equal(k8s.pdbsOf(d).length, 1, `${name}: PodDisruptionBudgets`);
        const services = k8s.servicesOf(d);
        assert.equal(services.length, 1, `${name}: Services`);
        const ports = new Set(d.spec!.template.spec!.containers.flatMap((c) => (c.ports ?? []).flatMap((p) => [p.name, p.containerPort])));
        for (const p of services[0]!.spec!.ports ?? []) assert.ok(ports.has(p.targetPort ?? p.port), `${name}: Service port ${p.name} targets no container port`);
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
          assert.ok(triggers.length > 0 && triggers.every((t) => t.type === 'kafka'), `${name}: triggers must be Kafka lag`);
        } else {
          assert.equal(hpas.length, 1, `${name}: an HTTP service scales with a HorizontalPodAutoscaler`);
          const metrics = hpas[0]!.spec!.metrics ?? [];
          assert.ok(metrics.some((m) => m.type === 'Resource' && m.resource?.name === 'cpu'), `${name}: no CPU metric`);
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
          assert.ok(so.spec.maxReplicaCount <= partitions, `${name}: maxReplicaCount ${so.spec.maxReplicaCount} > ${partitions} partitions`);
          assert.ok((so.spec.minReplicaCount ?? 0) <= so.spec.maxReplicaCount, `${name}: minReplicaCount above the maximum`);
        }
        for (const hpa of hpas) assert.ok(hpa.spec!.maxReplicas <= partitions, `${name}: maxReplicas above ${partitions} partitions`);
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
        const groups = Object.entries(config)
          .filter(([key]) => key.endsWith('_GROUP_ID'))
          .map(([, value]) => String(value));
        assert.ok(groups.length > 0, `${own.service} has no *_GROUP_ID setting`);
        for (const trigger of so.spec.triggers) {
          const meta = trigger.metadata as Record<string, string>;
          assert.equal(meta['bootstrapServers'], brokers, `${name}: bootstrapServers is not KAFKA_BROKERS`);
          if (so.metadata?.namespace !== undefined) {
            // KEDA's operator connects from its own namespace, where a bare Service name means nothing
            for (const broker of brokers.split(',')) assert.match(broker, /^[^:]+\.[^:]+:\d+$/, `${name}: ${broker} is not namespace-qualified`);
          }
          assert.ok(topics.has(meta['topic'] ?? ''), `${name}: ${meta['topic']} is not a memstream topic`);
          // a service may join several groups named after its setting (the converter's `<group>.ark`)
          const group = meta['consumerGroup'] ?? '';
          assert.ok(groups.some((g) => group === g || group.startsWith(`${g}.`)), `${name}: group ${group} is none of ${groups.join(', ')}`);
        }
      }
    });
  });
}

test('the ARK Memory example points at the read API Service', () => {
  const base = new Rendered(renderKustomization(join(ROOT, 'k8s', 'base')));
  const docs = parseAllDocuments(readFileSync(join(ROOT, 'k8s', 'examples', 'ark-memory.yaml'), 'utf8')).map(
    (d) => d.toJS() as { kind: string; spec: { address?: { valueFrom?: { serviceRef?: { name: string; port: number } } } } },
  );
  const ref = docs.find((d) => d.kind === 'Memory')?.spec.address?.valueFrom?.serviceRef;
  assert.ok(ref, 'no Memory with a serviceRef');
  const service = base.serviceNamed(ref.name);
  assert.ok(service, `no Service ${ref.name}`);
  assert.ok((service.spec!.ports ?? []).some((p) => p.port === ref.port), `Service ${ref.name} has no port ${ref.port}`);
  const behind = base.deploymentBehind(service);
  assert.deepEqual(behind?.spec!.template.spec!.containers[0]?.args, ['read-api']);
});
