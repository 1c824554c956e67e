import type { TestContext } from 'node:test';
import { healthy } from '../helpers/embedded.js';
import { waitFor } from '../helpers/infra.js';
import { freePort, groupGone, signalGroup, startProcess, type RunningProcess } from '../../harness/processes.js';
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

  constructor(
    private readonly t: TestContext,
    readonly env: Record<string, string>,
  ) {}

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
    for (const service of SERVICES) this.ports.set(service, await freePort());
    for (const service of SERVICES) this.spawn(service);
    await waitFor(
      'every service healthy',
      async () => (await Promise.all(SERVICES.map((s) => healthy(this.base(s))))).every(Boolean),
      120_000,
    );
  }

  /** SIGKILL: no drain, no commit, whatever it was doing is cut off. */
  async kill(service: Service): Promise<void> {
    const p = this.processes.get(service)!;
    signalGroup(p.child.pid!, 'SIGKILL');
    await p.exited;
    await groupGone(p.child.pid!);
  }

  async restart(service: Service): Promise<void> {
    this.spawn(service);
    await waitFor(`${service} healthy again`, () => healthy(this.base(service)), 120_000);
  }

  private spawn(service: Service): void {
    this.processes.set(
      service,
      startProcess(this.t, mainOf(service), {
        ...this.env,
        PORT: String(this.ports.get(service)),
        LOG_LEVEL: 'warn',
      }),
    );
  }
}
