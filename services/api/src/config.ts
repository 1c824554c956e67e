import { z } from 'zod';
import {
  authSettings,
  consumerGroupSettings,
  embeddingSettings,
  env,
  httpEdgeSettings,
  episodeRuleSettings,
  platformEnv,
  requireAuthOffLoopback,
  requireRedisWithKafka,
  writerSettings,
} from '@memstream/config';
import type { ResponseLimits } from '@memstream/fanout';
import type { ApiDeps } from './register-api.js';

/**
 * The API processes' settings: both compose the same family plugins, so both read the same
 * settings, each using what its half needs (the gateway the write path's, the read API the
 * embedding model's and the streams').
 */
export const apiSettings = {
  ...authSettings,
  ...httpEdgeSettings,
  ...writerSettings,
  ...embeddingSettings,
  ...episodeRuleSettings,
  /** The pipeline's groups, whose lag the read API reads from Kafka for the console. */
  ...consumerGroupSettings,
  /** Comment frames on idle SSE streams, so proxies do not close them. */
  SSE_HEARTBEAT_MS: env.int(15_000, 100),
  /**
   * How often every open stream of a person re-checks their access, in case the converter's notice
   * of a membership change was lost on its way (it normally ends a removed member's stream at once).
   */
  STREAM_ACCESS_RECHECK_MS: env.int(5_000, 100),
  /** The memory-service response resumer: `auto` (Redis with REDIS_URL, in-process without), or `none` (its calls answer 409). */
  RESPONSE_RESUMER: z.enum(['auto', 'none']).default('auto'),
  /** How long an ended response stays replayable. */
  RESPONSE_RETENTION_S: env.int(600, 1, 86_400),
  /** A response's bounds: UTF-8 bytes of its tokens' text, and its tokens (413 past either). */
  RESPONSE_MAX_BYTES: env.int(1024 * 1024, 1, 1024 * 1024 * 1024),
  RESPONSE_MAX_TOKENS: env.int(100_000, 1, 10_000_000),
  /** Responses one caller may have in progress at once (429 past it): a person (or the local user), an agent key. */
  RESPONSE_MAX_IN_PROGRESS_PER_PERSON: env.int(8, 1, 1_000_000),
  RESPONSE_MAX_IN_PROGRESS_PER_AGENT: env.int(1_000, 1, 1_000_000),
  /** An unfinished response nobody recorded to for this long is forgotten (Redis: its keys expire). */
  RESPONSE_IDLE_S: env.int(300, 1, 86_400),
  /** In-process resumer (embedded mode): what all held responses may cost in all (429 past it); 0: an eighth of the heap limit. */
  RESPONSE_MEMORY_BUDGET_BYTES: env.int(0, 0, 64 * 1024 * 1024 * 1024),
  /** KAOS agent memory: the agent a session belongs to when a call names none (X-KAOS-Agent). */
  KAOS_AGENT_NAME: env.string('agent'),
  /** KAOS's switch: false gives its NullMemory (every call succeeds, nothing is stored). */
  MEMORY_ENABLED: env.bool(true),
  /** KAOS's limits, per agent: past them the least recently updated tenth of sessions goes... */
  MEMORY_MAX_SESSIONS: env.int(1000, 1, 10_000_000),
  /** ...and a session keeps only its latest events. */
  MEMORY_MAX_SESSION_EVENTS: env.int(500, 1, 1_000_000),
  /**
   * The read API's streaming replicas of DATABASE_URL (comma separated). A read runs on one once
   * it has replayed the primary's position at the read's arrival, else on the primary, so every
   * write answered before a read is in what it reads (ReplicaReads). Empty: every read on DATABASE_URL.
   */
  DATABASE_REPLICA_URLS: env.list(),
  /** How long a read waits for a replica to replay that position before it reads the primary. */
  DATABASE_REPLICA_WAIT_MS: env.int(250, 0, 60_000),
  /** A replica that failed or lagged past the wait is left out this long, its reads going to the primary. */
  DATABASE_REPLICA_RETRY_MS: env.int(5_000, 100, 3_600_000),
};

export const apiEnv = platformEnv
  .extend(apiSettings)
  .superRefine(requireRedisWithKafka)
  .superRefine(requireAuthOffLoopback);
export type ApiConfig = z.infer<typeof apiEnv>;

/** The response resumer's bounds (see ResponseLimits). */
export function responseLimitsOf(config: ApiConfig): ResponseLimits {
  return {
    maxBytes: config.RESPONSE_MAX_BYTES,
    maxTokens: config.RESPONSE_MAX_TOKENS,
    maxInProgressPerPerson: config.RESPONSE_MAX_IN_PROGRESS_PER_PERSON,
    maxInProgressPerAgent: config.RESPONSE_MAX_IN_PROGRESS_PER_AGENT,
    idleS: config.RESPONSE_IDLE_S,
    memoryBudgetBytes: config.RESPONSE_MEMORY_BUDGET_BYTES,
  };
}

/** The families' settings from a configuration (an API process's own, or the all-in-one's). */
export function apiSettingsOf(
  config: ApiConfig,
): Pick<
  ApiDeps<'all'>,
  'sseHeartbeatMs' | 'streamAccessRecheckMs' | 'syncTimeoutMs' | 'episodeRules' | 'kaos' | 'consumerGroups'
> {
  return {
    consumerGroups: {
      CONVERTER_GROUP_ID: config.CONVERTER_GROUP_ID,
      INDEXER_GROUP_ID: config.INDEXER_GROUP_ID,
      EXTRACTOR_GROUP_ID: config.EXTRACTOR_GROUP_ID,
      SUMMARIZER_GROUP_ID: config.SUMMARIZER_GROUP_ID,
      GOVERNANCE_GROUP_ID: config.GOVERNANCE_GROUP_ID,
    },
    kaos: {
      enabled: config.MEMORY_ENABLED,
      defaultAgent: config.KAOS_AGENT_NAME,
      maxSessions: config.MEMORY_MAX_SESSIONS,
      maxSessionEvents: config.MEMORY_MAX_SESSION_EVENTS,
    },
    sseHeartbeatMs: config.SSE_HEARTBEAT_MS,
    streamAccessRecheckMs: config.STREAM_ACCESS_RECHECK_MS,
    syncTimeoutMs: config.REQUEST_SYNC_TIMEOUT_MS,
    episodeRules: {
      maxMessages: config.EPISODE_MAX_MESSAGES,
      maxTokens: config.EPISODE_MAX_TOKENS,
      silenceMs: config.EPISODE_SILENCE_MS,
    },
  };
}
