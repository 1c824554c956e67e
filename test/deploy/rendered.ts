import { ScaledObject, type IScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import {
  HorizontalPodAutoscaler,
  type IHorizontalPodAutoscaler,
} from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job, type IJob } from 'kubernetes-models/batch/v1/Job';
import { Ingress, type IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { PodDisruptionBudget, type IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service, type IService } from 'kubernetes-models/v1/Service';
import type { KubeObject } from './tools.js';

/** A container that runs the memstream image, and the service (its first argument) it runs. */
export interface MemstreamContainer {
  readonly owner: string;
  readonly service: string;
  readonly container: IContainer;
  readonly pod: IPodSpec;
}

/** The objects one kustomization renders, by kind, with what the tests ask of them. */
export class Rendered {
  readonly deployments: IDeployment[];
  readonly jobs: IJob[];
  readonly services: IService[];
  readonly pdbs: IPodDisruptionBudget[];
  readonly hpas: IHorizontalPodAutoscaler[];
  readonly scaledObjects: IScaledObject[];
  readonly ingresses: IIngress[];
  private readonly configMaps: Map<string, Record<string, string>>;
  private readonly secrets: Map<string, Record<string, string>>;

  constructor(readonly objects: readonly KubeObject[]) {
    const of = <T>(is: (o: unknown) => o is T) => objects.filter((o): o is KubeObject & T => is(o));
    this.deployments = of(Deployment.is);
    this.jobs = of(Job.is);
    this.services = of(Service.is);
    this.pdbs = of(PodDisruptionBudget.is);
    this.hpas = of(HorizontalPodAutoscaler.is);
    this.scaledObjects = of(ScaledObject.is);
    this.ingresses = of(Ingress.is);
    this.configMaps = new Map(of(ConfigMap.is).map((c) => [c.metadata!.name!, c.data ?? {}]));
    this.secrets = new Map(
      of(Secret.is).map((s) => [
        s.metadata!.name!,
        {
          ...Object.fromEntries(
            Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
          ),
          ...(s.stringData ?? {}),
        },
      ]),
    );
  }

  /** The pod templates of Deployments and Jobs. */
  pods(): IPodSpec[] {
    return [...this.deployments.map((d) => d.spec!.template.spec!), ...this.jobs.map((j) => j.spec!.template.spec!)];
  }

  /** Containers of Deployments and Jobs whose image is memstream's, with the service each runs. */
  memstreamContainers(): MemstreamContainer[] {
    const pods = [
      ...this.deployments.map((d) => ({ owner: `Deployment/${d.metadata!.name!}`, pod: d.spec!.template.spec! })),
      ...this.jobs.map((j) => ({ owner: `Job/${j.metadata!.name!}`, pod: j.spec!.template.spec! })),
    ];
    return pods.flatMap(({ owner, pod }) =>
      pod.containers
        .filter((c) => /(^|\/)memstream[:@]/.test(c.image ?? ''))
        .map((container) => ({ owner, pod, container, service: container.args?.[0] ?? 'all-in-one' })),
    );
  }

  /**
   * The environment a container starts with. A key of a Secret this rendering does not include
   * (prod's, created by the operator) stands in with a placeholder when the container needs it
   * (an optional key may be absent); a Secret it includes must have every key that is not optional.
   */
  environmentOf(container: IContainer): { env: Record<string, string>; problems: string[] } {
    const env: Record<string, string> = {};
    const problems: string[] = [];
    for (const source of container.envFrom ?? []) {
      const name = source.configMapRef?.name ?? source.secretRef?.name ?? '';
      const data = source.configMapRef ? this.configMaps.get(name) : this.secrets.get(name);
      if (data === undefined && source.configMapRef) problems.push(`envFrom ConfigMap ${name} is not rendered`);
      Object.assign(env, data ?? {});
    }
    for (const variable of container.env ?? []) {
      if (variable.value !== undefined) {
        env[variable.name] = variable.value;
        continue;
      }
      const ref = variable.valueFrom?.secretKeyRef ?? variable.valueFrom?.configMapKeyRef;
      if (ref === undefined) {
        problems.push(`${variable.name} has neither a value nor a Secret or ConfigMap key`);
        continue;
      }
      const isSecret = variable.valueFrom?.secretKeyRef !== undefined;
      const data = isSecret ? this.secrets.get(ref.name ?? '') : this.configMaps.get(ref.name ?? '');
      if (data === undefined) {
        if (!isSecret) problems.push(`${variable.name}: ConfigMap ${ref.name} is not rendered`);
        else if (ref.optional !== true) env[variable.name] = secretStandIn(ref.name ?? '', ref.key);
      } else if (data[ref.key] !== undefined) {
        env[variable.name] = data[ref.key]!;
      } else if (ref.optional !== true) {
        problems.push(`${variable.name}: ${ref.name} has no key ${ref.key}`);
      }
    }
    return { env, problems };
  }

  /** The autoscalers aimed at a Deployment: HorizontalPodAutoscalers and KEDA ScaledObjects. */
  autoscalersOf(deployment: IDeployment): { hpas: IHorizontalPodAutoscaler[]; scaledObjects: IScaledObject[] } {
    const name = deployment.metadata!.name;
    return {
      hpas: this.hpas.filter(
        (h) => h.spec!.scaleTargetRef.kind === 'Deployment' && h.spec!.scaleTargetRef.name === name,
      ),
      scaledObjects: this.scaledObjects.filter(
        (s) => (s.spec.scaleTargetRef.kind ?? 'Deployment') === 'Deployment' && s.spec.scaleTargetRef.name === name,
      ),
    };
  }

  pdbsOf(deployment: IDeployment): IPodDisruptionBudget[] {
    const labels = deployment.spec!.template.metadata?.labels ?? {};
    return this.pdbs.filter((p) => selects(p.spec?.selector?.matchLabels, labels));
  }

  servicesOf(deployment: IDeployment): IService[] {
    const labels = deployment.spec!.template.metadata?.labels ?? {};
    return this.services.filter((s) => selects(s.spec?.selector, labels));
  }

  serviceNamed(name: string): IService | undefined {
    return this.services.find((s) => s.metadata!.name === name);
  }

  /** The Deployment whose pods a Service sends to. */
  deploymentBehind(service: IService): IDeployment | undefined {
    return this.deployments.find((d) => selects(service.spec?.selector, d.spec!.template.metadata?.labels ?? {}));
  }
}

/**
 * What stands in for a key of a Secret the operator creates: shaped like one `clientId:key` entry
 * and as long as an HS256 secret must be, so credentials parse it as they would a real value.
 */
function secretStandIn(secret: string, key: string): string {
  return `stand-in:${`${secret}/${key}`.padEnd(32, '.')}`;
}

/** A selector selects labels when it is not empty and each of its pairs is among them. */
function selects(selector: Record<string, string> | undefined, labels: Record<string, string>): boolean {
  const pairs = Object.entries(selector ?? {});
  return pairs.length > 0 && pairs.every(([k, v]) => labels[k] === v);
}

/** Seconds a container's preStop hook sleeps (`sleep N`), 0 without one. */
export function preStopSeconds(container: IContainer): number {
  const command = container.lifecycle?.preStop?.exec?.command ?? [];
  const sleep = container.lifecycle?.preStop?.sleep?.seconds;
  if (sleep !== undefined) return sleep;
  return command[0] === 'sleep' ? Number(command[1]) : 0;
}
