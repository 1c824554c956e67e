import { z } from 'zod';
import { env, loadConfig } from './load-config.js';

/** What every process that accepts writes reads: the ingest gateway, the read API, the embedded mode. */
export const writerSettings = {
  /** A write call waits this long for its message to be stored before answering 202 instead. */
  REQUEST_SYNC_TIMEOUT_MS: env.int(5_000, 0, 120_000),
  /** Requests held open at once; past it the gateway answers 503 with Retry-After. */
  GATEWAY_MAX_IN_FLIGHT: env.int(20_000, 1),
};

export const modelSettings = {
  /** An OpenAI-compatible server; with neither this nor a key, summaries (and extraction) are made offline. */
  OPENAI_BASE_URL: env.optionalString(),
  OPENAI_API_KEY: env.optionalString(),
};

/**
 * The consumer groups of the pipeline's services, each read by its own service and all of them by
 * the converter: an erasure cuts a topic only once every group that reads it has passed its end.
 */
export const consumerGroupSettings = {
  CONVERTER_GROUP_ID: env.string('memstream-converter'),
  INDEXER_GROUP_ID: env.string('memstream-indexer'),
  EXTRACTOR_GROUP_ID: env.string('memstream-extractor'),
  SUMMARIZER_GROUP_ID: env.string('memstream-summarizer'),
  GOVERNANCE_GROUP_ID: env.string('memstream-governance'),
};

/** The pipeline's consumer group ids an environment sets, the defaults for those it leaves unset. */
export function consumerGroupIdsOf(
  vars: Record<string, string | undefined>,
): z.infer<z.ZodObject<typeof consumerGroupSettings>> {
  return loadConfig(z.object(consumerGroupSettings), vars);
}

/** Where episodes end: the extractor applies them as messages arrive, the read API on a flush. */
export const episodeRuleSettings = {
  /** An episode closes at this many messages... */
  EPISODE_MAX_MESSAGES: env.int(50, 1, 10_000),
  /** ...or before it would pass this many tokens (estimated at four characters a token)... */
  EPISODE_MAX_TOKENS: env.int(8_192, 16),
  /** ...or when the next message comes this long after the one before it (message times)... */
  EPISODE_SILENCE_MS: env.int(4 * 3_600_000, 1),
};

/**
 * Separate processes learn of each other's progress (a stored message, so a held HTTP call may
 * answer) through Redis; in one process the in-memory fan-out does it. So a service that runs
 * alone on Kafka needs REDIS_URL, and says so at start-up rather than timing out every call.
 */
export function requireRedisWithKafka(
  config: { KAFKA_BROKERS: string[]; REDIS_URL: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (config.KAFKA_BROKERS.length > 0 && config.REDIS_URL === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['REDIS_URL'],
      message: 'required when KAFKA_BROKERS is set (services run as separate processes)',
    });
  }
}
