import type { z } from 'zod';
import { consumerGroupSettings, env, modelSettings, platformEnv } from '@memstream/config';

export const summarizerSettings = {
  ...modelSettings,
  SUMMARIZER_GROUP_ID: consumerGroupSettings.SUMMARIZER_GROUP_ID,
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
  /** Least time between two summaries of one conversation (a busy conversation's are spaced). */
  SUMMARY_MIN_INTERVAL_MS: env.int(1_000, 0, 600_000),
};

export const summarizerEnv = platformEnv.extend(summarizerSettings);
export type SummarizerConfig = z.infer<typeof summarizerEnv>;
