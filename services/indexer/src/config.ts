import type { z } from 'zod';
import { consumerGroupSettings, embeddingSettings, env, platformEnv } from '@memstream/config';

export const indexerSettings = {
  INDEXER_GROUP_ID: consumerGroupSettings.INDEXER_GROUP_ID,
  /** The converter's group, whose backlog the indexer yields to (INDEXER_YIELD_LAG). */
  CONVERTER_GROUP_ID: consumerGroupSettings.CONVERTER_GROUP_ID,
  /** Items re-embedded per round when the model changed; and the sweep that finds them. */
  INDEXER_REEMBED_BATCH: env.int(64, 1, 10_000),
  INDEXER_SWEEP_INTERVAL_MS: env.int(5_000, 50),
  /**
   * The longest a queued item the sweep could not embed waits before it is tried again (the wait
   * starts at INDEXER_SWEEP_INTERVAL_MS and doubles with each failure).
   */
  INDEXER_RETRY_MAX_DELAY_MS: env.int(900_000, 1),
  /**
   * A message stored this long ago with no vector is queued for the sweep: its event's indexing
   * was lost (dead-lettered, with the listener that queues such messages failing too). Long enough
   * that the consumer, even behind, has handled the event; shorter only costs embedding twice.
   */
  INDEXER_MISSING_VECTOR_AFTER_MS: env.int(600_000, 0),
  /**
   * Vector writes the indexer runs at once, across its partition lanes, its two consumers and its
   * sweep; the rest wait their turn in the process, holding no connection. Each write inserts into
   * one HNSW graph, and writers beyond the cores wait on each other's buffer locks (docs/performance.md).
   */
  INDEXER_WRITERS: env.int(2, 1, 64),
  /**
   * Storing comes first: while the converter is more than this many input records behind (and
   * getting on with them), the indexer holds its batches of stored messages and memories before
   * embedding them, so a burst is stored at the rate storing alone reaches and indexed after it.
   * Keyword search finds a message without its vector meanwhile. 0 never holds.
   */
  INDEXER_YIELD_LAG: env.int(1_000, 0),
  /**
   * The longest one backlog holds the indexer: past it the indexer goes on until the converter
   * has worked that backlog off, so a converter that is always behind costs indexing one pause.
   */
  INDEXER_YIELD_MAX_MS: env.int(30_000, 0, 600_000),
  ...embeddingSettings,
};

export const indexerEnv = platformEnv.extend(indexerSettings);
export type IndexerConfig = z.infer<typeof indexerEnv>;
