import {
  retryPolicyOf,
  subscribeWiring,
  type Bus,
  type RetryPolicy,
  type Subscription,
  type Wiring,
} from '@memstream/bus';
import type { ConverterConfig } from './config.js';
import type { Fanout } from '@memstream/fanout';
import type { Logger } from '@memstream/logging';
import { startPeriodicJob, type Lifecycle } from '@memstream/runtime';
import { foldKeywordCounts, purgeRequestOutcomes, type Store } from '@memstream/store';
import { type CONSUMERS, consumerGroup, inputRecordMaxBytes, TOPICS } from '@memstream/schemas';
import { MetaCache } from './meta-cache.js';
import { handleArkBatch } from './handlers/ark-messages.js';
import { handleConversationBatch } from './handlers/conversation-input.js';
import { coalesce, type CoalesceLimits } from './coalescer.js';
import { handleGroupChatBatch, handleGroupChatEvent, recordDeadLetter } from './handlers/group-chat-input.js';
import type { BoundaryRules } from '@memstream/episodes';
import type { Eraser } from './handlers/erasure.js';
import { createEraser } from './handlers/erasure.js';
import { transportEraser } from './transport-erasure.js';
import { startRetentionJob } from './retention-job.js';
import type { Metrics } from '@memstream/metrics';

/** Messages one keyword fold takes, so that one statement (and its locks) stays bounded under a backlog. */
const KEYWORD_FOLD_LIMIT = 5_000;

export interface ConverterOptions {
  readonly bus: Bus;
  readonly store: Store;
  readonly fanout: Fanout;
  readonly log: Logger;
  readonly groupId: string;
  readonly retry: RetryPolicy;
  readonly partitionsConcurrently: number;
  readonly maxBatchSize: number;
  /** How group-chat batches are split and overlapped (see coalesce); unset: one flush at a time. */
  readonly flushes?: CoalesceLimits;
  readonly metaCacheMs: number;
  /** Episode boundaries, for flushes (the extractor's rules). */
  readonly rules: BoundaryRules;
  /** Runs the erasure jobs the erasure topic names. */
  readonly eraser: Eraser;
  /**
   * The broker's record limit (KAFKA_MAX_MESSAGE_BYTES; unset: 1,000,000): input records larger
   * than it less INPUT_HEADROOM_BYTES are refused before anything of them is stored.
   */
  readonly brokerMaxBytes?: number;
}

/** Subscribes the converter's handlers; the caller stops the returned subscriptions on shutdown. */
export async function startConverter(options: ConverterOptions): Promise<Subscription[]> {
  const deps = {
    bus: options.bus,
    store: options.store,
    fanout: options.fanout,
    metas: new MetaCache(options.metaCacheMs),
    rules: options.rules,
  };
  const maxRecordBytes = inputRecordMaxBytes(options.brokerMaxBytes ?? 1_000_000);
  const wiring: Wiring<typeof TOPICS, typeof CONSUMERS, 'converter'> = {
    groupChatInput: {
      groupId: consumerGroup('groupChatInput', 'converter', options.groupId),
      maxRecordBytes,
      retry: options.retry,
      partitionsConcurrently: options.partitionsConcurrently,
      maxBatchSize: options.maxBatchSize,
      batchHandler: coalesce(handleGroupChatBatch(deps), options.flushes),
      // the fallback that isolates a bad record must not share a flush with other partitions
      handler: handleGroupChatEvent(deps),
      onDeadLetter: recordDeadLetter(deps, options.log),
    },
    arkMessages: {
      groupId: consumerGroup('arkMessages', 'converter', options.groupId),
      maxRecordBytes,
      retry: options.retry,
      partitionsConcurrently: options.partitionsConcurrently,
      maxBatchSize: options.maxBatchSize,
      batchHandler: coalesce(handleArkBatch(deps)),
      handler: (event, ctx) => handleArkBatch(deps)([event], ctx),
      onDeadLetter: recordDeadLetter(deps, options.log),
    },
    conversationInput: {
      groupId: consumerGroup('conversationInput', 'converter', options.groupId),
      maxRecordBytes,
      retry: options.retry,
      partitionsConcurrently: options.partitionsConcurrently,
      maxBatchSize: options.maxBatchSize,
      batchHandler: handleConversationBatch(deps),
      handler: (event, ctx) => handleConversationBatch(deps)([event], ctx),
      onDeadLetter: recordDeadLetter(deps, options.log),
    },
    erasures: {
      // one job at a time per partition: a job is long, and its lease keeps it to one worker anyway
      groupId: consumerGroup('erasures', 'converter', options.groupId),
      retry: options.retry,
      handler: options.eraser.handle,
    },
  };
  return subscribeWiring(options.bus, TOPICS, wiring);
}

/**
 * The converter as a process runs it (alone, or inside the all-in-one): settings from config,
 * its subscriptions stopped (drained and committed) when the lifecycle shuts down, and request
 * outcomes older than their time to live purged now and then.
 */
export async function runConverter(
  config: ConverterConfig,
  deps: {
    bus: Bus;
    store: Store;
    fanout: Fanout;
    log: Logger;
    lifecycle: Lifecycle;
    /** Where the retention job's counts go (the process's registry). */
    metrics?: Metrics;
    /** Removes the response streams of conversations an erasure removed (Redis, or the embedded process's memory). */
    discardStreams: (conversationIds: readonly string[]) => Promise<void>;
  },
): Promise<void> {
  const eraser = createEraser(
    {
      store: deps.store,
      discard: deps.discardStreams,
      // this process's own bus: in the embedded mode, the one every service of the process reads
      eraseTransport: transportEraser(deps.bus, config),
      log: deps.log,
    },
    {
      batchSize: config.ERASURE_BATCH_SIZE,
      leaseMs: config.ERASURE_LEASE_MS,
      sweepIntervalMs: config.ERASURE_SWEEP_INTERVAL_MS,
      maxAttempts: config.ERASURE_MAX_ATTEMPTS,
    },
  );
  const subscriptions = await startConverter({
    bus: deps.bus,
    store: deps.store,
    fanout: deps.fanout,
    log: deps.log,
    groupId: config.CONVERTER_GROUP_ID,
    retry: retryPolicyOf(config),
    partitionsConcurrently: config.CONVERTER_PARTITIONS_CONCURRENTLY,
    maxBatchSize: config.CONVERTER_MAX_BATCH_SIZE,
    brokerMaxBytes: config.KAFKA_MAX_MESSAGE_BYTES,
    flushes: { parallel: config.CONVERTER_FLUSHES_IN_FLIGHT, maxItems: config.CONVERTER_MAX_FLUSH_MESSAGES },
    metaCacheMs: config.CONVERTER_META_CACHE_MS,
    eraser,
    rules: {
      maxMessages: config.EPISODE_MAX_MESSAGES,
      maxTokens: config.EPISODE_MAX_TOKENS,
      silenceMs: config.EPISODE_SILENCE_MS,
    },
  });
  deps.lifecycle.defer('converter consumers', async () => void (await Promise.all(subscriptions.map((s) => s.stop()))));
  // Registered after the consumers, so it runs before they stop: the job in hand stops between two
  // batches instead of holding the shutdown, and is taken over once its lease runs out.
  deps.lifecycle.defer('erasure worker', () => eraser.close());

  // Stored messages' keyword counts, kept off the append statement (see foldKeywordCounts). Often,
  // so that searches have few pending rows to count; a full fold is followed by another at once.
  startPeriodicJob(
    { name: 'keyword count fold', everyMs: 200, log: deps.log, lifecycle: deps.lifecycle },
    async (signal) => {
      while (!signal.aborted && (await foldKeywordCounts(deps.store, KEYWORD_FOLD_LIMIT)) === KEYWORD_FOLD_LIMIT);
    },
  );

  startRetentionJob(config, deps);

  // Every replica purges; the DELETE is idempotent, the jitter keeps them from doing it together.
  startPeriodicJob(
    { name: 'request outcome purge', everyMs: 5 * 60_000, jitterMs: 60_000, log: deps.log, lifecycle: deps.lifecycle },
    async () => {
      const cutoff = new Date(Date.now() - config.REQUEST_STATUS_TTL_SECONDS * 1000);
      const removed = await purgeRequestOutcomes(deps.store, cutoff);
      if (removed > 0) deps.log.info({ removed }, 'expired request outcomes purged');
    },
  );
}
