import type { TestContext } from 'node:test';
import { healthy } from '../helpers/embedded.js';
import { deleteTopics } from '../helpers/infra.js';
import {
  groupGone,
  restartServing,
  signalGroup,
  startServing,
  type RunningProcess,
  type ServeOptions,
} from '../../harness/processes.js';
import { mainOf } from '../../scripts/processes.js';

export const SERVICES = [
  'ingest-gateway',
  'converter',
  'read-api',
  'extractor',
  'indexer',
  'summarizer',
  'governance',
] as const;
export type Service = (typeof SERVICES)[number];

/**
 * The distributed mode, one process per service, on the fault suite's private infrastructure.
 * A service can be killed and started again on the same port, as an orchestrator would.
 */
export class Pipeline {
  private readonly processes = new Map<Service, RunningProcess>();
  private readonly ports = new Map<Service, number>();

  /**
   * Ends with the test: its services killed, then the topics of its prefix deleted, so each row
   * (and the next run) finds the brokers no fuller than the first did; a broker's heap grows
   * with every partition it hosts.
   */
  constructor(
    private readonly t: TestContext,
    readonly env: Record<string, string>,
  ) {
    // The first hook registered runs first, before those of the processes spawned later.
    t.after(async () => {
      await Promise.all([...this.processes.values()].map((p) => p.crash()));
      const prefix = env['KAFKA_TOPIC_PREFIX'];
      if (prefix) await deleteTopics((name) => name.startsWith(prefix), env['KAFKA_BROKERS']!.split(','));
    });
  }

  /** The warnings and errors each service logged, latest last. */
  complaints(limit = 5): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const [service, p] of this.processes) {
      out[service] = p.lines
        .slice(-limit)
        .map((l) => `${String(l['msg'])}${l['err'] ? `: ${JSON.stringify(l['err']).slice(0, 300)}` : ''}`);
    }
    return out;
  }

  base(service: Service): string {
    return `http://127.0.0.1:${this.ports.get(service)}`;
  }

  async start(): Promise<void> {
    await Promise.all(
      SERVICES.map((service) => startServing(this.t, mainOf(service), this.envOf(), this.watch(service))),
    ).catch(async (err: unknown) => {
      throw new Error(`${String(err)}: ${JSON.stringify(await this.unhealthy(), null, 1)}`);
    });
  }

  /** For a start that timed out: each service not ready, with what it answered and its last lines. */
  private async unhealthy(): Promise<Record<string, { answer: string; stderr: string; lines: string[] }>> {
    const out: Record<string, { answer: string; stderr: string; lines: string[] }> = {};
    for (const service of SERVICES) {
      if (!this.ports.has(service) || (await healthy(this.base(service)))) continue;
      const answer = await fetch(`${this.base(service)}/health/ready`).then(
        async (r) => `${r.status} ${await r.text()}`,
        (e: unknown) => String(e),
      );
      const p = this.processes.get(service);
      const lines = (p?.lines ?? [])
        .filter((l) => Number(l['level']) >= 50)
        .map((l) => `${String(l['msg'])}: ${JSON.stringify(l['err'] ?? '').slice(0, 3000)}`);
      out[service] = { answer, stderr: p?.stderr().slice(-1500) ?? '', lines };
    }
    return out;
  }

  /** SIGKILL: no drain, no commit, whatever it was doing is cut off. */
  async kill(service: Service): Promise<void> {
    const p = this.processes.get(service)!;
    signalGroup(p.child.pid!, 'SIGKILL');
    await p.exited;
    await groupGone(p.child.pid!);
  }

  /** Started again on its own port: the process must answer from it, never another that took it meanwhile. */
  async restart(service: Service): Promise<void> {
    await restartServing(this.t, mainOf(service), this.envOf(), this.base(service), this.watch(service));
  }

  private envOf(): Record<string, string> {
    return { ...this.env, LOG_LEVEL: 'warn' };
  }

  /** Keeps each process and its port as it starts, for complaints() and unhealthy() to read. */
  private watch(service: Service): ServeOptions {
    return {
      timeoutMs: 120_000,
      started: ({ base, proc }) => {
        this.ports.set(service, Number(new URL(base).port));
        this.processes.set(service, proc);
      },
    };
  }
}
