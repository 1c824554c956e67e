import type { z } from 'zod';
import { consumerGroupSettings, embeddingSettings, env, platformEnv } from '@memstream/config';

export const indexerSettings = {
  INDEXER_GROUP_ID: consumerGroupSettings.INDEXER_GROUP_ID,
  /** Items re-embedded per round when the model changed; and the sweep that finds them. */
  INDEXER_REEMBED_BATCH: env.int(64, 1, 10_000),
  INDEXER_SWEEP_INTERVAL_MS: env.int(5_000, 50),
  ...embeddingSettings,
};

export const indexerEnv = platformEnv.extend(indexerSettings);
export type IndexerConfig = z.infer<typeof indexerEnv>;
