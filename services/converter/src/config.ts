import type { z } from 'zod';
import { consumerGroupSettings, env, episodeRuleSettings, platformEnv, requireRedisWithKafka } from '@memstream/config';

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
};

export const converterEnv = platformEnv.extend(converterSettings).superRefine(requireRedisWithKafka);
export type ConverterConfig = z.infer<typeof converterEnv>;
