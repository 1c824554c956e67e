import type { TestContext } from 'node:test';
import pg from 'pg';
import { runCaptured } from '../../harness/processes.js';

export type InfraPart = 'kafka' | 'postgres' | 'redis';

/**
 * A Kafka broker, a PostgreSQL and a Redis of the fault suite's own, started by the project's
 * infrastructure scripts on other ports and in another state folder: the suite stops and starts
 * them, which it must never do to the instances the rest of the suite shares.
 */
export class PrivateInfra {
  private readonly env: NodeJS.ProcessEnv;
  readonly ports = { kafka: 29092, kafkaController: 29093, postgres: 25432, redis: 26379 };

  constructor(stateDir = '/tmp/memstream-faults-infra') {
    this.env = {
      ...process.env,
      MEMSTREAM_INFRA_DIR: stateDir,
      MEMSTREAM_KAFKA_PORT: String(this.ports.kafka),
      MEMSTREAM_KAFKA_CONTROLLER_PORT: String(this.ports.kafkaController),
      MEMSTREAM_PG_PORT: String(this.ports.postgres),
      MEMSTREAM_REDIS_PORT: String(this.ports.redis),
    };
  }

  get kafkaBrokers(): string {
    return `127.0.0.1:${this.ports.kafka}`;
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

  /** All three, stopped again when the test ends. */
  async start(t: TestContext): Promise<void> {
    t.after(() =>
      Promise.all((['kafka', 'postgres', 'redis'] as const).map((p) => this.down(p).catch(() => undefined))),
    );
    await Promise.all((['kafka', 'postgres', 'redis'] as const).map((p) => this.up(p)));
  }

  /** A new database on the private server. */
  async freshDatabase(name: string): Promise<string> {
    const client = new pg.Client({ connectionString: this.databaseUrl() });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${name}`);
    await client.end();
    return this.databaseUrl(name);
  }

  private async run(part: InfraPart, action: 'up' | 'down'): Promise<void> {
    const run = await runCaptured('bash', [`scripts/infra/${part}.sh`, action], { env: this.env });
    if (run.code !== 0) throw new Error(`${part} ${action} failed (${run.code}): ${run.stderr.slice(-2000)}`);
  }
}
