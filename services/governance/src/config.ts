import type { z } from 'zod';
import { consumerGroupSettings, env, platformEnv, requireRedisWithKafka } from '@memstream/config';
import { RETENTION_PERIOD_PATTERN } from '@memstream/schemas';

/** How long one kind of data lives: a positive ISO 8601 period (P30D, P1Y, PT12H); unset or blank, forever. */
const period = () =>
  env.optionalMatching(RETENTION_PERIOD_PATTERN, 'a positive ISO 8601 duration such as P90D, P1Y or PT24H');

export const governanceSettings = {
  /** Its own group (the erasure topic's), and the pipeline's (an erasure waits for every group that reads a topic). */
  ...consumerGroupSettings,
  /** Erasures: conversations handled per transaction. */
  ERASURE_BATCH_SIZE: env.int(100, 1, 10_000),
  /** How long an erasure job stays one process's without a sign of life (then another takes it over). */
  ERASURE_LEASE_MS: env.int(30_000, 100, 3_600_000),
  /** How often the worker looks for erasure jobs nobody holds. */
  ERASURE_SWEEP_INTERVAL_MS: env.int(10_000, 50, 3_600_000),
  /** Tries before an erasure job is marked failed. */
  ERASURE_MAX_ATTEMPTS: env.int(5, 1, 100),
  /** Eviction (POST /v1/admin/evict): conversation groups hard-deleted per transaction. */
  EVICTION_BATCH_SIZE: env.int(100, 1, 10_000),
  /** How long a job stays one process's without progress; a dead process's job is taken over after it. */
  EVICTION_LEASE_MS: env.int(30_000, 100, 3_600_000),
  /**
   * How often the worker looks for eviction jobs: the API only writes the job and waits for it, so
   * this is also how soon a request's job starts (one small indexed query per look).
   */
  EVICTION_SWEEP_INTERVAL_MS: env.int(1_000, 50, 3_600_000),
  /** Tries of a job before it is marked failed. */
  EVICTION_MAX_ATTEMPTS: env.int(5, 1, 100),
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
  /**
   * How often the keyword sums over every conversation are checked against the conversations'
   * counts and summed again when they drifted (a writer older than migration 0045 left running
   * through a rolling upgrade): one scan of the totals, a row per conversation and kind.
   */
  KEYWORD_SUMS_CHECK_INTERVAL_MS: env.int(900_000, 50, 7 * 86_400_000),
};

export const governanceEnv = platformEnv.extend(governanceSettings).superRefine(requireRedisWithKafka);
export type GovernanceConfig = z.infer<typeof governanceEnv>;
