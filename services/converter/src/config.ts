import type { z } from 'zod';
import { consumerGroupSettings, env, episodeRuleSettings, platformEnv, requireRedisWithKafka } from '@memstream/config';

export const converterSettings = {
  /** A flush closes a group's open episode by the extractor's rules, so the converter reads them too. */
  ...episodeRuleSettings,
  /** Its own group (and the others', which every process's settings share). */
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
};

export const converterEnv = platformEnv.extend(converterSettings).superRefine(requireRedisWithKafka);
export type ConverterConfig = z.infer<typeof converterEnv>;
