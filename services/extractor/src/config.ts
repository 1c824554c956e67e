import type { z } from 'zod';
import { consumerGroupSettings, env, episodeRuleSettings, modelSettings, platformEnv } from '@memstream/config';

export const extractorSettings = {
  EXTRACTOR_GROUP_ID: consumerGroupSettings.EXTRACTOR_GROUP_ID,
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

export const extractorEnv = platformEnv.extend(extractorSettings);
export type ExtractorConfig = z.infer<typeof extractorEnv>;
