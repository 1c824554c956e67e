import type { z } from 'zod';
import { env, platformEnv } from '@memstream/config';

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
    KAFKA_MAX_MESSAGE_BYTES: true,
    KAFKA_SESSION_TIMEOUT_MS: true,
    DATABASE_POOL_MAX: true,
    DATABASE_STATEMENT_TIMEOUT_MS: true,
    STORE_DISTRIBUTION: true,
    SHUTDOWN_TIMEOUT_MS: true,
  })
  .extend({
    KAFKA_BROKERS: env.list().refine((brokers) => brokers.length > 0, 'required: the broker to create the topics on'),
    DATABASE_URL: env.string(),
  });
export type SetupConfig = z.infer<typeof setupEnv>;
