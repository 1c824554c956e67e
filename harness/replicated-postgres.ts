import { rm } from 'node:fs/promises';
import type { TestContext } from 'node:test';
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { runCaptured } from './processes.js';

/**
 * A PostgreSQL primary with streaming replicas of its own, started by the infrastructure scripts
 * (postgres.sh, postgres-replica.sh) on other ports and in another state folder than the shared
 * server's: a base backup of the shared server would copy every other test's databases, and a
 * test stops replicas, which it must never do to what others share. For tests and benchmarks.
 */
export class ReplicatedPostgres {
  private readonly env: NodeJS.ProcessEnv;

  constructor(
    readonly primaryPort: number,
    readonly replicaPorts: readonly number[],
    private readonly stateDir: string,
  ) {
    this.env = { ...process.env, MEMSTREAM_INFRA_DIR: stateDir, MEMSTREAM_PG_PORT: String(primaryPort) };
  }

  /**
   * Starts the primary and fresh replicas of it; `t`, when given, stops them when it ends. A
   * replica a killed run left behind is removed first: left running, its replay may still be
   * paused by that run's test; left stopped, it may need WAL its primary has recycled since.
   * Either way it would never replay what this run writes.
   */
  async start(t?: TestContext): Promise<void> {
    t?.after(() => this.stop());
    await this.run('postgres.sh', 'up');
    await this.removeReplicas();
    await this.run('postgres-replica.sh', 'up', ...this.replicaPorts.map(String));
  }

  /** Stops the primary and the replicas and removes their folder. */
  async stop(): Promise<void> {
    await this.removeReplicas().catch(() => undefined);
    await this.run('postgres.sh', 'down').catch(() => undefined);
    await rm(this.stateDir, { recursive: true, force: true });
  }

  /** A new database on the primary (the replicas get it by replication); its URL on the primary. */
  async freshDatabase(): Promise<string> {
    const name = `r_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const client = new pg.Client({ connectionString: this.url(this.primaryPort, 'postgres') });
    await client.connect();
    await client.query(`CREATE DATABASE ${name}`);
    await client.end();
    return this.url(this.primaryPort, name);
  }

  /** The same database on each replica. */
  replicaUrls(primaryUrl: string): string[] {
    const name = new URL(primaryUrl).pathname.slice(1);
    return this.replicaPorts.map((port) => this.url(port, name));
  }

  /** Makes the replicas of a primary someone else started (postgres.sh up finds it running). */
  async addReplicas(): Promise<void> {
    await this.start();
  }

  /** Stops the replicas and removes their data, leaving the primary as it is. */
  async removeReplicas(): Promise<void> {
    await this.run('postgres-replica.sh', 'down', ...this.replicaPorts.map(String));
  }

  /** Stops a replica, keeping its data: a replica that went away. */
  async stopReplica(port: number): Promise<void> {
    await this.run('postgres-replica.sh', 'stop', String(port));
  }

  async startReplica(port: number): Promise<void> {
    await this.run('postgres-replica.sh', 'start', String(port));
  }

  private url(port: number, database: string): string {
    return `postgres://postgres@127.0.0.1:${port}/${database}`;
  }

  private async run(script: string, ...args: string[]): Promise<void> {
    const run = await runCaptured('bash', [`scripts/infra/${script}`, ...args], { env: this.env });
    if (run.code !== 0) throw new Error(`${script} ${args.join(' ')} failed (${run.code}): ${run.stderr.slice(-2000)}`);
  }
}
