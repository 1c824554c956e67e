import { z } from 'zod';
import { env } from './load-config.js';

/**
 * The settings every memstream process shares. A service extends this with its own.
 * Which backends a process uses follows from what is set: no KAFKA_BROKERS means the
 * in-process bus, no DATABASE_URL means the embedded store under DATA_DIR (the embedded mode).
 */
export const platformEnv = z.object({
  LOG_LEVEL: env.logLevel(),
  PORT: env.port(8080),
  /** Where the HTTP server listens; unset: every interface, except an API process without authentication (loopback). */
  HOST: env.optionalString(),
  DATA_DIR: env.string('./data'),
  KAFKA_BROKERS: env.list(),
  KAFKA_CLIENT_ID: env.string('memstream'),
  /** Prepended to every topic name: several deployments (or test runs) can share one cluster. */
  KAFKA_TOPIC_PREFIX: z.string().default(''),
  KAFKA_TOPIC_PARTITIONS: env.int(8, 1, 1024),
  /** Unset: one copy per live broker up to 3, and min.insync.replicas=2 from 3 copies on. */
  KAFKA_REPLICATION_FACTOR: env.optionalInt(1, 7),
  KAFKA_REQUEST_TIMEOUT_MS: env.int(30_000, 100),
  /**
   * The broker's record size limit (message.max.bytes). The input topics take records 64 KiB
   * below it (INPUT_HEADROOM_BYTES), so what a message becomes downstream fits; a bigger write is
   * refused with 413.
   */
  KAFKA_MAX_MESSAGE_BYTES: env.int(1_000_000, 256 * 1024),
  /** A consumer silent this long is taken out of its group and its partitions go to the others. */
  KAFKA_SESSION_TIMEOUT_MS: env.int(30_000, 6_000, 300_000),
  DATABASE_URL: env.optionalString(),
  /**
   * The store when DATABASE_URL is unset. `postgres`: a native PostgreSQL this process starts and
   * stops under DATA_DIR/postgres, durable like any PostgreSQL. `pglite`: PostgreSQL compiled to
   * WASM inside the process, which does not flush its files, so acknowledged writes can be lost
   * in a crash; only for platforms without the prebuilt binaries.
   */
  EMBEDDED_STORE: z.enum(['postgres', 'pglite']).default('postgres'),
  /** The unprivileged user the embedded PostgreSQL runs as when memstream runs as root. */
  EMBEDDED_POSTGRES_OS_USER: env.string('memstream'),
  /** Where `npm ci` put the PostgreSQL binaries (default <repo>/.cache/postgres/pgserver-<version>). */
  MEMSTREAM_POSTGRES_DIR: env.optionalString(),
  /**
   * Connections the process's pool may open. Unset: 10 to a PostgreSQL at DATABASE_URL, 6 to the
   * embedded one (poolSizeOf), whose server shares the machine with this process.
   */
  DATABASE_POOL_MAX: env.optionalInt(1, 500),
  DATABASE_STATEMENT_TIMEOUT_MS: env.int(30_000, 100),
  /**
   * `partitioned`: after the migrations, every distributed table of the store's registry is
   * hash-partitioned by its shard column, so PostgreSQL holds the key rules Citus holds
   * (docs/store.md). Every process of a deployment sets the same.
   */
  STORE_LAYOUT: z.enum(['plain', 'partitioned']).default('plain'),
  /** Distributed tables allowed to stay plain while blocked, each named in a warning (docs/store.md). */
  STORE_LAYOUT_KEEP_PLAIN: env.list(),
  /**
   * `citus`: after the migrations, lay every table out on the Citus coordinator at DATABASE_URL as
   * the registry `store_distribution` says (docs/store.md). Refused without DATABASE_URL.
   */
  STORE_DISTRIBUTION: z.enum(['none', 'citus']).default('none'),
  REDIS_URL: env.optionalString(),
  SHUTDOWN_TIMEOUT_MS: env.int(15_000, 100),
  CONSUMER_MAX_ATTEMPTS: env.int(5, 1, 100),
  CONSUMER_RETRY_INITIAL_MS: env.int(200, 1),
  CONSUMER_RETRY_MAX_MS: env.int(10_000, 1),
  /**
   * How long the background consumers (indexer, extractor, summarizer) let a batch fill up before
   * handling it: under load they then run a few large batches instead of one per message, and the
   * write path keeps the CPU. 0 handles every record at once.
   */
  BACKGROUND_LINGER_MS: env.int(200, 0, 10_000),
  HTTP_BODY_LIMIT_BYTES: env.int(10 * 1024 * 1024, 1024),
  /** How long `GET /api/v1/stats/request` can still answer for a request (accepted marker and outcome row). */
  REQUEST_STATUS_TTL_SECONDS: env.int(3600, 60),
});

export type PlatformConfig = z.infer<typeof platformEnv>;
