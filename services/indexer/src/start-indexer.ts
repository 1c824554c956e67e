import {
  BacklogYield,
  retryPolicyOf,
  subscribeWiring,
  type BacklogYieldOptions,
  type Bus,
  type Wiring,
} from '@memstream/bus';
import type { IndexerConfig } from './config.js';
import type { Embedder } from '@memstream/embedding';
import type { Logger } from '@memstream/logging';
import { Slots, startPeriodicJob, type Lifecycle } from '@memstream/runtime';
import { CONSUMERS, consumerGroup, consumerGroupsOf, TOPICS } from '@memstream/schemas';
import { ensureVectorIndex, shardGroupsOf, type Store } from '@memstream/store';
import { Indexer } from './indexer.js';
import { queueDeadLettered } from './dead-lettered.js';

/** Records handed to one index call: the embedder splits them into its own inference batches. */
const INDEX_BATCH = 128;

/**
 * The indexer as a process runs it (alone, or in the all-in-one): two consumers, of stored
 * messages and of extracted memories (two groups: one kafkajs group must not mix topic sets),
 * embedding in batches, and a sweep that repairs and re-embeds. The model's HNSW index is
 * created before anything is written, so it exists as soon as vectors do.
 */
export async function runIndexer(
  config: IndexerConfig,
  deps: {
    bus: Bus;
    store: Store;
    embedder: Embedder;
    log: Logger;
    lifecycle: Lifecycle;
    /** Where the indexer's holds for the converter are counted (the process's registry). */
    metrics?: NonNullable<BacklogYieldOptions['metrics']>['registry'] | undefined;
  },
): Promise<Indexer> {
  const log = deps.log.child({ component: 'indexer', model: deps.embedder.model });
  const index = await ensureVectorIndex(deps.store, deps.embedder.model, deps.embedder.dimension);
  const indexer = new Indexer(
    deps.store,
    deps.embedder,
    config.INDEXER_REEMBED_BATCH,
    log,
    {
      backoff: { firstMs: config.INDEXER_SWEEP_INTERVAL_MS, maxMs: config.INDEXER_RETRY_MAX_DELAY_MS },
      missingVectorAfterMs: config.INDEXER_MISSING_VECTOR_AFTER_MS,
    },
    // the plain layout splits nothing (undefined): a batch stays one statement, as before
    shardGroupsOf(config),
    // one cap for both consumers' lanes and the sweep: they all insert into the same graph
    new Slots(config.INDEXER_WRITERS),
  );
  // the converter's input topics, read by its group: what a batch waits for while it is behind
  const storingFirst = new BacklogYield(deps.bus, {
    watched: (Object.keys(CONSUMERS) as (keyof typeof CONSUMERS)[])
      .filter((topic) => (CONSUMERS[topic] as readonly string[]).includes('converter'))
      .map((topic) => ({
        topic: TOPICS[topic].name,
        groupIds: consumerGroupsOf(topic, { CONVERTER_GROUP_ID: config.CONVERTER_GROUP_ID }),
      })),
    lag: config.INDEXER_YIELD_LAG,
    maxHoldMs: config.INDEXER_YIELD_MAX_MS,
    log,
    ...(deps.metrics ? { metrics: { registry: deps.metrics, holder: 'indexer' } } : {}),
  });
  const wiring: Wiring<typeof TOPICS, typeof CONSUMERS, 'indexer'> = {
    messagesStored: {
      groupId: consumerGroup('messagesStored', 'indexer', config.INDEXER_GROUP_ID),
      retry: retryPolicyOf(config),
      partitionsConcurrently: config.KAFKA_TOPIC_PARTITIONS,
      maxBatchSize: INDEX_BATCH,
      lingerMs: config.BACKGROUND_LINGER_MS,
      batchHandler: async (events, ctx) => {
        await storingFirst.clear(ctx.signal);
        await indexer.indexMessages(events.map((e) => e.data));
      },
      handler: async (event) => void (await indexer.indexMessages([event.data])),
      onDeadLetter: queueDeadLettered(deps.store, log),
    },
    memoriesExtracted: {
      groupId: consumerGroup('memoriesExtracted', 'indexer', config.INDEXER_GROUP_ID),
      retry: retryPolicyOf(config),
      partitionsConcurrently: config.KAFKA_TOPIC_PARTITIONS,
      maxBatchSize: INDEX_BATCH,
      lingerMs: config.BACKGROUND_LINGER_MS,
      batchHandler: async (events, ctx) => {
        await storingFirst.clear(ctx.signal);
        await indexer.indexMemories(events.map((e) => e.data));
      },
      handler: async (event) => void (await indexer.indexMemories([event.data])),
    },
  };
  const subscriptions = await subscribeWiring(deps.bus, TOPICS, wiring);
  deps.lifecycle.defer('indexer', async () => void (await Promise.all(subscriptions.map((s) => s.stop()))));
  startPeriodicJob(
    { name: 'index sweep', everyMs: config.INDEXER_SWEEP_INTERVAL_MS, log, lifecycle: deps.lifecycle },
    () => indexer.sweep(),
  );
  log.info({ dimension: deps.embedder.dimension, index }, 'indexer started');
  return indexer;
}
