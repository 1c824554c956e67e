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
import { foldKeywordCounts, shardGroupsOf, type ShardGroupsOf, type Store } from '@memstream/store';
import { type CONSUMERS, consumerGroup, inputRecordMaxBytes, TOPICS } from '@memstream/schemas';
import { MetaCache } from './meta-cache.js';
import { handleArkBatch } from './handlers/ark-messages.js';
import { handleConversationBatch } from './handlers/conversation-input.js';
import { coalesce, type CoalesceLimits } from './coalescer.js';
import { handleGroupChatBatch, handleGroupChatEvent, recordDeadLetter } from './handlers/group-chat-input.js';
import type { BoundaryRules } from '@memstream/episodes';

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
  /**
   * The broker's record limit (KAFKA_MAX_MESSAGE_BYTES; unset: 1,000,000): input records larger
   * than it less INPUT_HEADROOM_BYTES are refused before anything of them is stored.
   */
  readonly brokerMaxBytes?: number;
  /** The store's layout's shard groups (shardGroupsOf): flushes of several groups are split by them. */
  readonly shardGroups?: ShardGroupsOf | undefined;
}

/** Subscribes the converter's handlers; the caller stops the returned subscriptions on shutdown. */
export async function startConverter(options: ConverterOptions): Promise<Subscription[]> {
  const deps = {
    bus: options.bus,
    store: options.store,
    fanout: options.fanout,
    metas: new MetaCache(options.metaCacheMs),
    rules: options.rules,
    shardGroups: options.shardGroups,
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
  };
  return subscribeWiring(options.bus, TOPICS, wiring);
}

/**
 * The converter as a process runs it (alone, or inside the all-in-one): settings from config, its
 * subscriptions stopped (drained and committed) when the lifecycle shuts down. It applies input
 * events and nothing else: erasure, eviction, retention and purges are the governance worker's.
 */
export async function runConverter(
  config: ConverterConfig,
  deps: { bus: Bus; store: Store; fanout: Fanout; log: Logger; lifecycle: Lifecycle },
): Promise<void> {
  const shardGroups = shardGroupsOf(config);
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
    rules: {
      maxMessages: config.EPISODE_MAX_MESSAGES,
      maxTokens: config.EPISODE_MAX_TOKENS,
      silenceMs: config.EPISODE_SILENCE_MS,
    },
    shardGroups,
  });
  deps.lifecycle.defer('converter consumers', async () => void (await Promise.all(subscriptions.map((s) => s.stop()))));

  // Stored messages' keyword counts, kept off the append statement (see foldKeywordCounts): the
  // write path's deferred half, not governance. Often, so that searches have few pending rows to
  // count; a full fold is followed by another at once.
  startPeriodicJob(
    { name: 'keyword count fold', everyMs: 200, log: deps.log, lifecycle: deps.lifecycle },
    async (signal) => {
      while (
        !signal.aborted &&
        (await foldKeywordCounts(deps.store, KEYWORD_FOLD_LIMIT, shardGroups)) === KEYWORD_FOLD_LIMIT
      );
    },
  );
}
