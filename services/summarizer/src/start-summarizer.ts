import { retryPolicyOf, subscribeWiring, type Bus, type Wiring } from '@memstream/bus';
import type { SummarizerConfig } from './config.js';
import { createChatModel } from '@memstream/llm';
import type { Logger } from '@memstream/logging';
import type { Metrics } from '@memstream/metrics';
import { startPeriodicJob, type Lifecycle } from '@memstream/runtime';
import type { Store } from '@memstream/store';
import { type CONSUMERS, consumerGroup, TOPICS, type MessageStored } from '@memstream/schemas';
import { offlineSummarizer } from './summarizers/offline.js';
import { modelSummarizer } from './summarizers/model.js';
import type { Summarizer } from './summarizers/summarizer.js';
import { SummaryWorker } from './summary-worker.js';

/** A model when one is configured (a key, or a base URL for keyless local servers), else offline. */
export function summarizerOf(config: SummarizerConfig, metrics: Metrics): Summarizer {
  if (config.OPENAI_BASE_URL === undefined && config.OPENAI_API_KEY === undefined) return offlineSummarizer;
  return modelSummarizer(
    createChatModel({
      baseUrl: config.OPENAI_BASE_URL,
      apiKey: config.OPENAI_API_KEY,
      model: config.SUMMARY_MODEL,
      timeoutMs: config.SUMMARY_MODEL_TIMEOUT_MS,
      maxRetries: config.SUMMARY_MODEL_MAX_RETRIES,
      metrics,
    }),
  );
}

/**
 * The summarizer as a process runs it (alone, or in the all-in-one): a consumer of stored
 * messages that triggers summaries (group chats have no rounds, so after every message, taking
 * the last of a batch per conversation), and a sweeper that recovers what was lost.
 */
export async function runSummarizer(
  config: SummarizerConfig,
  deps: { bus: Bus; store: Store; log: Logger; lifecycle: Lifecycle; metrics: Metrics; summarizer?: Summarizer },
): Promise<SummaryWorker> {
  const summarizer = deps.summarizer ?? summarizerOf(config, deps.metrics);
  const log = deps.log.child({ component: 'summarizer', summarizer: summarizer.name });
  const worker = new SummaryWorker(
    deps.store,
    summarizer,
    {
      windowSize: config.MEMORY_ROLLING_WINDOW_SIZE,
      summarizeAfterSeq: config.MEMORY_SUMMARIZE_AFTER_SEQ,
      processingTimeoutMs: config.SUMMARY_PROCESSING_TIMEOUT_MS,
      concurrency: config.SUMMARIZER_CONCURRENCY,
      retryInitialMs: config.SUMMARY_RETRY_INITIAL_MS,
      retryMaxMs: config.SUMMARY_RETRY_MAX_MS,
      minIntervalMs: config.SUMMARY_MIN_INTERVAL_MS,
    },
    log,
    deps.metrics,
  );
  // The last message of each conversation in the batch triggers; its correlation id goes along.
  const triggerLatest = async (events: readonly MessageStored[]) => {
    const last = new Map<string, MessageStored>();
    for (const e of events) {
      const seen = last.get(e.data.conversation_id);
      if (!seen || e.data.seq > seen.data.seq) last.set(e.data.conversation_id, e);
    }
    for (const [conversationId, e] of last) await worker.trigger(conversationId, e.data.seq, e.correlation_id);
  };
  const wiring: Wiring<typeof TOPICS, typeof CONSUMERS, 'summarizer'> = {
    messagesStored: {
      groupId: consumerGroup('messagesStored', 'summarizer', config.SUMMARIZER_GROUP_ID),
      retry: retryPolicyOf(config),
      partitionsConcurrently: config.KAFKA_TOPIC_PARTITIONS,
      maxBatchSize: 500,
      lingerMs: config.BACKGROUND_LINGER_MS,
      batchHandler: (events) => triggerLatest(events),
      handler: (event) => triggerLatest([event]),
    },
  };
  const subscriptions = await subscribeWiring(deps.bus, TOPICS, wiring);
  deps.lifecycle.defer('summarizer', async () => {
    await Promise.all(subscriptions.map((sub) => sub.stop()));
    await worker.stop();
  });
  // Registered after the worker, so it stops first: no sweep claims work once the worker stops.
  startPeriodicJob(
    { name: 'summary sweep', everyMs: config.SUMMARY_SWEEP_INTERVAL_MS, log, lifecycle: deps.lifecycle },
    () => worker.sweep(),
  );
  log.info(
    { windowSize: config.MEMORY_ROLLING_WINDOW_SIZE, after: config.MEMORY_SUMMARIZE_AFTER_SEQ },
    'summarizer started',
  );
  return worker;
}
