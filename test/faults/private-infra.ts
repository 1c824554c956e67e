import type { TestContext } from 'node:test';
import pg from 'pg';
import { runCaptured } from '../../harness/processes.js';

export type InfraPart = 'kafka' | 'postgres' | 'redis' | 'postgres-ha';

/** Brokers of the suite's Kafka: a 3-voter KRaft quorum, topics replicated 3 times, min.insync.replicas=2. */
export const KAFKA_NODES = 3;

/**
 * Three Kafka brokers, a PostgreSQL and a Redis of the fault suite's own, started by the project's
 * infrastructure scripts on other ports and in another state folder: the suite stops and starts
 * them, which it must never do to the instances the rest of the suite shares.
 */
export class PrivateInfra {
  private readonly env: NodeJS.ProcessEnv;
  readonly ports = { kafka: 29092, kafkaController: 29093, postgres: 25432, redis: 26379, postgresHa: 25440 };

  constructor(stateDir = '/tmp/memstream-faults-infra') {
    this.env = {
      ...process.env,
      MEMSTREAM_INFRA_DIR: stateDir,
      MEMSTREAM_KAFKA_PORT: String(this.ports.kafka),
      MEMSTREAM_KAFKA_CONTROLLER_PORT: String(this.ports.kafkaController),
      MEMSTREAM_KAFKA_NODES: String(KAFKA_NODES),
      MEMSTREAM_PG_PORT: String(this.ports.postgres),
      MEMSTREAM_REDIS_PORT: String(this.ports.redis),
      MEMSTREAM_PG_HA_PORT: String(this.ports.postgresHa),
    };
  }

  /** Every broker, comma-separated (kafka.sh puts node i on the base port + 2(i-1)). */
  get kafkaBrokers(): string {
    return Array.from({ length: KAFKA_NODES }, (_, i) => `127.0.0.1:${this.ports.kafka + 2 * i}`).join(',');
  }
  get redisUrl(): string {
    return `redis://127.0.0.1:${this.ports.redis}`;
  }
  databaseUrl(name = 'memstream'): string {
    return `postgres://postgres@127.0.0.1:${this.ports.postgres}/${name}`;
  }

  async up(part: InfraPart): Promise<void> {
    await this.run(part, 'up');
  }

  async down(part: InfraPart): Promise<void> {
    await this.run(part, 'down');
  }

  /** SIGKILL of one broker (1..KAFKA_NODES): a machine lost, nothing flushed or handed over. */
  async killBroker(node: number): Promise<void> {
    await this.run('kafka', 'kill', String(node));
  }

  async upBroker(node: number): Promise<void> {
    await this.run('kafka', 'up', String(node));
  }

  /** Resident memory of each broker, as kafka.sh reports it. */
  async kafkaRss(): Promise<string> {
    const run = await runCaptured('bash', ['scripts/infra/kafka.sh', 'rss'], { env: this.env });
    return run.stdout.trim().replaceAll('\n', ', ');
  }

  /** All three, stopped again when the test ends. */
  async start(t: TestContext): Promise<void> {
    t.after(() =>
      Promise.all((['kafka', 'postgres', 'redis'] as const).map((p) => this.down(p).catch(() => undefined))),
    );
    await Promise.all((['kafka', 'postgres', 'redis'] as const).map((p) => this.up(p)));
  }

  /** A new database on the private server, or on the HA cluster through its HAProxy. */
  async freshDatabase(name: string, on: 'postgres' | 'postgres-ha' = 'postgres'): Promise<string> {
    const url = on === 'postgres' ? this.databaseUrl.bind(this) : this.haDatabaseUrl.bind(this);
    const client = new pg.Client({ connectionString: url('memstream') });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${name}`);
    await client.end();
    return url(name);
  }

  /** The HA cluster's one address: HAProxy, which follows the primary. */
  haDatabaseUrl(name = 'memstream'): string {
    return `postgres://postgres@127.0.0.1:${this.ports.postgresHa}/${name}`;
  }

  /** SIGKILLs the HA primary's Patroni and PostgreSQL together (its machine lost); returns the node's name. */
  async killHaPrimary(): Promise<string> {
    return (await this.run('postgres-ha', 'kill-primary')).trim();
  }

  /** Starts a node's Patroni again, as its machine coming back would. */
  async startHaNode(node: string): Promise<void> {
    await this.run('postgres-ha', 'start-node', node.replace(/^pg/, ''));
  }

  /** Each node's role as Patroni reports it: leader, sync_standby, replica. */
  async haRoles(): Promise<Record<string, string>> {
    const roles: Record<string, string> = {};
    for (const node of [1, 2, 3]) {
      const res = await fetch(`http://127.0.0.1:${this.ports.postgresHa + 10 + node}/cluster`, {
        signal: AbortSignal.timeout(2000),
      }).catch(() => undefined);
      if (!res?.ok) continue;
      const { members } = (await res.json()) as { members: { name: string; role: string; state: string }[] };
      for (const m of members) if (m.state === 'running') roles[m.name] = m.role;
      return roles;
    }
    return roles;
  }

  /** Resident memory of each process of the HA cluster, as postgres-ha.sh rss prints it. */
  async haRss(): Promise<string> {
    return this.run('postgres-ha', 'rss');
  }

  private async run(part: InfraPart, ...args: string[]): Promise<string> {
    const run = await runCaptured('bash', [`scripts/infra/${part}.sh`, ...args], { env: this.env });
    if (run.code !== 0) throw new Error(`${part} ${args.join(' ')} failed (${run.code}): ${run.stderr.slice(-2000)}`);
    return run.stdout;
  }
}
