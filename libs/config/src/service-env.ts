import { z } from 'zod';
import { env } from './load-config.js';
import { platformEnv } from './platform-config.js';
import { embeddingSettings } from './embedding-settings.js';
import { authSettings, requireAuthOffLoopback } from './auth-settings.js';

const gatewaySettings = {
  ...authSettings,
  /** A write call waits this long for its message to be stored before answering 202 instead. */
  REQUEST_SYNC_TIMEOUT_MS: env.int(5_000, 0, 120_000),
  /** Requests held open at once; past it the gateway answers 503 with Retry-After. */
  GATEWAY_MAX_IN_FLIGHT: env.int(20_000, 1),
  /** The broker's record size limit (message.max.bytes); a bigger event is refused with 413. */
  KAFKA_MAX_MESSAGE_BYTES: env.int(1_000_000, 1024),
};

const converterSettings = {
  CONVERTER_GROUP_ID: env.string('memstream-converter'),
  CONVERTER_PARTITIONS_CONCURRENTLY: env.int(8, 1, 1024),
  /** Consecutive records of one partition stored in one transaction. */
  CONVERTER_MAX_BATCH_SIZE: env.int(500, 1, 10_000),
  /** How long a group's metadata is reused before it is read again (it only matters after a rebalance). */
  CONVERTER_META_CACHE_MS: env.int(10_000, 0),
};

const summarizerSettings = {
  SUMMARIZER_GROUP_ID: env.string('memstream-summarizer'),
  /** Spec 004: the window covers this many messages... */
  MEMORY_ROLLING_WINDOW_SIZE: env.int(14, 2, 10_000),
  /** ...and summaries start once a conversation's last sequence number reaches this. */
  MEMORY_SUMMARIZE_AFTER_SEQ: env.int(5, 0),
  SUMMARY_MODEL: env.string('gpt-4.1-mini'),
  /** A summary still 'processing' after this is taken as lost and redone. */
  SUMMARY_PROCESSING_TIMEOUT_MS: env.int(300_000, 1000),
  SUMMARY_MODEL_TIMEOUT_MS: env.int(60_000, 1000),
  /** The model client's own retries of 429, 5xx and timeouts, with backoff. */
  SUMMARY_MODEL_MAX_RETRIES: env.int(4, 0, 20),
  /** A failed summary is tried again after this, doubling per failure up to the max. */
  SUMMARY_RETRY_INITIAL_MS: env.int(5_000, 10),
  SUMMARY_RETRY_MAX_MS: env.int(300_000, 10),
  SUMMARY_SWEEP_INTERVAL_MS: env.int(5_000, 100),
  SUMMARIZER_CONCURRENCY: env.int(4, 1, 256),
};

const modelSettings = {
  /** An OpenAI-compatible server; with neither this nor a key, summaries (and extraction) are made offline. */
  OPENAI_BASE_URL: env.optionalString(),
  OPENAI_API_KEY: env.optionalString(),
};

/** Where episodes end: the extractor applies them as messages arrive, the read API on a flush. */
const episodeRuleSettings = {
  /** An episode closes at this many messages... */
  EPISODE_MAX_MESSAGES: env.int(50, 1, 10_000),
  /** ...or before it would pass this many tokens (estimated at four characters a token)... */
  EPISODE_MAX_TOKENS: env.int(8_192, 16),
  /** ...or when the next message comes this long after the one before it (message times)... */
  EPISODE_SILENCE_MS: env.int(4 * 3_600_000, 1),
};

const extractorSettings = {
  EXTRACTOR_GROUP_ID: env.string('memstream-extractor'),
  ...episodeRuleSettings,
  /** An open episode also closes when nothing new has arrived for this long (arrival times); 0: never. */
  EPISODE_IDLE_CLOSE_MS: env.int(4 * 3_600_000, 0),
  /** Set it (with OPENAI_BASE_URL or OPENAI_API_KEY) to extract with a model; unset, extraction is offline. */
  EXTRACTION_MODEL: env.optionalString(),
  /** With a model: ask it whether the topic has ended once an open episode has this many messages. */
  EPISODE_TOPIC_MIN_MESSAGES: env.int(4, 2, 10_000),
  EPISODE_TOPIC_DETECTION: env.bool(true),
  EXTRACTION_TIMEOUT_MS: env.int(60_000, 100),
  /** The model client's own retries of 429, 5xx and timeouts, with backoff. */
  EXTRACTION_MAX_RETRIES: env.int(4, 0, 20),
  /** A reply that fails validation is asked for again, with the error, this many times. */
  EXTRACTION_REPAIR_ATTEMPTS: env.int(2, 0, 10),
  /** A failed episode is tried again after this, doubling per failure up to the max; never dropped. */
  EXTRACTION_RETRY_INITIAL_MS: env.int(5_000, 10),
  EXTRACTION_RETRY_MAX_MS: env.int(600_000, 10),
  /** A worker owns an episode this long; a crashed worker's episodes are taken again after it. */
  EXTRACTION_LEASE_MS: env.int(300_000, 1000),
  EXTRACTION_SWEEP_INTERVAL_MS: env.int(2_000, 50),
  EXTRACTION_CONCURRENCY: env.int(2, 1, 64),
  ...modelSettings,
};

const indexerSettings = {
  INDEXER_GROUP_ID: env.string('memstream-indexer'),
  /** Items re-embedded per round when the model changed; and the sweep that finds them. */
  INDEXER_REEMBED_BATCH: env.int(64, 1, 10_000),
  INDEXER_SWEEP_INTERVAL_MS: env.int(5_000, 50),
  ...embeddingSettings,
};

/**
 * Separate processes learn of each other's progress (a stored message, so a held HTTP call may
 * answer) through Redis; in one process the in-memory fan-out does it. So a service that runs
 * alone on Kafka needs REDIS_URL, and says so at start-up rather than timing out every call.
 */
function requireRedisWithKafka(config: { KAFKA_BROKERS: string[]; REDIS_URL: string | undefined }, ctx: z.RefinementCtx): void {
  if (config.KAFKA_BROKERS.length > 0 && config.REDIS_URL === undefined) {
    ctx.addIssue({ code: 'custom', path: ['REDIS_URL'], message: 'required when KAFKA_BROKERS is set (services run as separate processes)' });
  }
}

export const gatewayEnv = platformEnv.extend(gatewaySettings).superRefine(requireRedisWithKafka).superRefine(requireAuthOffLoopback);
export type GatewayConfig = z.infer<typeof gatewayEnv>;

export const converterEnv = platformEnv.extend(converterSettings).superRefine(requireRedisWithKafka);
export type ConverterConfig = z.infer<typeof converterEnv>;

export const summarizerEnv = platformEnv.extend({ ...summarizerSettings, ...modelSettings });
export type SummarizerConfig = z.infer<typeof summarizerEnv>;

export const extractorEnv = platformEnv.extend(extractorSettings);
export type ExtractorConfig = z.infer<typeof extractorEnv>;

export const indexerEnv = platformEnv.extend(indexerSettings);
export type IndexerConfig = z.infer<typeof indexerEnv>;

const readApiSettings = {
  ...gatewaySettings,
  ...embeddingSettings,
  ...episodeRuleSettings,
  /** Comment frames on idle SSE streams, so proxies do not close them. */
  SSE_HEARTBEAT_MS: env.int(15_000, 100),
  /** The memory-service response resumer: `auto` (Redis with REDIS_URL, in-process without), or `none` (its calls answer 409). */
  RESPONSE_RESUMER: z.enum(['auto', 'none']).default('auto'),
  /** How long an ended response stays replayable. */
  RESPONSE_RETENTION_S: env.int(600, 1, 86_400),
  /** KAOS agent memory: the agent a session belongs to when a call names none (X-KAOS-Agent). */
  KAOS_AGENT_NAME: env.string('agent'),
  /** KAOS's switch: false gives its NullMemory (every call succeeds, nothing is stored). */
  MEMORY_ENABLED: env.bool(true),
  /** KAOS's limits, per agent: past them the least recently updated tenth of sessions goes... */
  MEMORY_MAX_SESSIONS: env.int(1000, 1, 10_000_000),
  /** ...and a session keeps only its latest events. */
  MEMORY_MAX_SESSION_EVENTS: env.int(500, 1, 1_000_000),
};

export const readApiEnv = platformEnv.extend(readApiSettings).superRefine(requireRedisWithKafka).superRefine(requireAuthOffLoopback);
export type ReadApiConfig = z.infer<typeof readApiEnv>;

/**
 * The one-shot setup job creates the topics and applies the migrations before the services start,
 * so it needs a broker and a database (without them there is nothing to set up) and nothing else.
 */
export const setupEnv = platformEnv
  .pick({
    LOG_LEVEL: true,
    DATA_DIR: true,
    KAFKA_CLIENT_ID: true,
    KAFKA_TOPIC_PREFIX: true,
    KAFKA_TOPIC_PARTITIONS: true,
    KAFKA_REPLICATION_FACTOR: true,
    KAFKA_REQUEST_TIMEOUT_MS: true,
    KAFKA_SESSION_TIMEOUT_MS: true,
    DATABASE_POOL_MAX: true,
    DATABASE_STATEMENT_TIMEOUT_MS: true,
    SHUTDOWN_TIMEOUT_MS: true,
  })
  .extend({
    KAFKA_BROKERS: env.list().refine((brokers) => brokers.length > 0, 'required: the broker to create the topics on'),
    DATABASE_URL: env.string(),
  });
export type SetupConfig = z.infer<typeof setupEnv>;

/** The embedded mode runs every service in one process, so it reads every service's settings. */
export const allInOneEnv = platformEnv.extend({
  ...readApiSettings,
  ...converterSettings,
  ...summarizerSettings,
  ...extractorSettings,
  ...indexerSettings,
}).superRefine(requireAuthOffLoopback);
export type AllInOneConfig = z.infer<typeof allInOneEnv>;
