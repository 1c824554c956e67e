import type { z } from 'zod';
import { consumerGroupSettings, env, episodeRuleSettings, platformEnv, requireRedisWithKafka } from '@memstream/config';
import { RETENTION_PERIOD_PATTERN } from '@memstream/schemas';

/** How long one kind of data lives: a positive ISO 8601 period (P30D, P1Y, PT12H); unset or blank, forever. */
const period = () =>
  env.optionalMatching(RETENTION_PERIOD_PATTERN, 'a positive ISO 8601 duration such as P90D, P1Y or PT24H');

export const converterSettings = {
  /** A flush closes a group's open episode by the extractor's rules, so the converter reads them too. */
  ...episodeRuleSettings,
  /** Its own group, and the other services' (an erasure waits for every group that reads a topic). */
  ...consumerGroupSettings,
  CONVERTER_PARTITIONS_CONCURRENTLY: env.int(8, 1, 1024),
  /** Consecutive records of one partition stored in one transaction. */
  CONVERTER_MAX_BATCH_SIZE: env.int(500, 1, 10_000),
  /** Group-chat flushes that may run at once when a backlog is queued (see coalesce). */
  CONVERTER_FLUSHES_IN_FLIGHT: env.int(3, 1, 64),
  /** Most messages one group-chat flush stores: a backlog is split into flushes this size. */
  CONVERTER_MAX_FLUSH_MESSAGES: env.int(1000, 1, 100_000),
  /** How long a group's metadata is reused before it is read again (it only matters after a rebalance). */
  CONVERTER_META_CACHE_MS: env.int(10_000, 0),
  /** Erasures: conversations handled per transaction. */
  ERASURE_BATCH_SIZE: env.int(100, 1, 10_000),
  /** How long an erasure job stays one process's without a sign of life (then another takes it over). */
  ERASURE_LEASE_MS: env.int(30_000, 100, 3_600_000),
  /** How often a converter looks for erasure jobs nobody holds. */
  ERASURE_SWEEP_INTERVAL_MS: env.int(10_000, 50, 3_600_000),
  /** Tries before an erasure job is marked failed. */
  ERASURE_MAX_ATTEMPTS: env.int(5, 1, 100),
  /** Retention (docs/your-users-data.md): how long each kind lives; unset, it is kept forever. */
  RETENTION_MESSAGES: period(),
  RETENTION_MEMORIES: period(),
  RETENTION_SUMMARIES: period(),
  RETENTION_KAOS_EVENTS: period(),
  RETENTION_ARK_SESSIONS: period(),
  /** How long soft-deleted data (memory-service conversations, KAOS sessions, removed memberships) is kept. */
  RETENTION_DELETED: period(),
  /** How often the retention job runs (one replica at a time). */
  RETENTION_INTERVAL_MS: env.int(3_600_000, 50, 7 * 86_400_000),
  /** Retention: conversations (or memories, summaries, sessions) handled per transaction. */
  RETENTION_BATCH_SIZE: env.int(100, 1, 10_000),
  /** How long a retention run stays one process's without finishing a batch (then another may run it). */
  RETENTION_LEASE_MS: env.int(60_000, 100, 3_600_000),
};

export const converterEnv = platformEnv.extend(converterSettings).superRefine(requireRedisWithKafka);
export type ConverterConfig = z.infer<typeof converterEnv>;
