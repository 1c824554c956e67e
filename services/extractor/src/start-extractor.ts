import { publishEvents, retryPolicyOf, subscribeWiring, type Bus, type Wiring } from '@memstream/bus';
import type { ExtractorConfig } from './config.js';
import { createChatModel, type ChatModel } from '@memstream/llm';
import type { Logger } from '@memstream/logging';
import type { Metrics } from '@memstream/metrics';
import { startPeriodicJob, type Lifecycle } from '@memstream/runtime';
import type { Store } from '@memstream/store';
import { type CONSUMERS, consumerGroup, TOPICS } from '@memstream/schemas';

import { announceExtracted, listenForClosingHints } from '@memstream/episodes';
import type { Fanout } from '@memstream/fanout';
import { EpisodeWorker } from './episode-worker.js';
import { offlineExtractor } from './extractors/offline.js';
import { modelExtractor } from './extractors/model.js';
import { extractionMetricsOf } from './extraction-metrics.js';

/** The model, when EXTRACTION_MODEL names one and a server (or key) is configured. */
export function extractionModelOf(config: ExtractorConfig, metrics: Metrics): ChatModel | undefined {
  if (config.EXTRACTION_MODEL === undefined) return undefined;
  if (config.OPENAI_BASE_URL === undefined && config.OPENAI_API_KEY === undefined) return undefined;
  return createChatModel({
    baseUrl: config.OPENAI_BASE_URL,
    apiKey: config.OPENAI_API_KEY,
    model: config.EXTRACTION_MODEL,
    timeoutMs: config.EXTRACTION_TIMEOUT_MS,
    maxRetries: config.EXTRACTION_MAX_RETRIES,
    metrics,
  });
}

/**
 * The episode extractor as a process runs it (alone, or in the all-in-one): a consumer of stored
 * messages that closes episodes by the boundary rules, extracts their memories (a model when one
 * is configured, offline otherwise), publishes them for the indexer, and sweeps for what is due.
 */
export async function runExtractor(
  config: ExtractorConfig,
  deps: {
    bus: Bus;
    store: Store;
    log: Logger;
    lifecycle: Lifecycle;
    metrics: Metrics;
    /** Where finished extractions are announced to waiting flushes; without it they find out by re-reading. */
    fanout?: Fanout;
  },
): Promise<EpisodeWorker> {
  const model = extractionModelOf(config, deps.metrics);
  const extractor = model
    ? modelExtractor(model, { repairAttempts: config.EXTRACTION_REPAIR_ATTEMPTS })
    : offlineExtractor;
  const log = deps.log.child({ component: 'extractor', extractor: extractor.name });
  const worker = new EpisodeWorker(
    deps.store,
    extractor,
    config.EPISODE_TOPIC_DETECTION ? model : undefined,
    {
      rules: {
        maxMessages: config.EPISODE_MAX_MESSAGES,
        maxTokens: config.EPISODE_MAX_TOKENS,
        silenceMs: config.EPISODE_SILENCE_MS,
      },
      idleCloseMs: config.EPISODE_IDLE_CLOSE_MS,
      concurrency: config.EXTRACTION_CONCURRENCY,
      leaseMs: config.EXTRACTION_LEASE_MS,
      retryInitialMs: config.EXTRACTION_RETRY_INITIAL_MS,
      retryMaxMs: config.EXTRACTION_RETRY_MAX_MS,
      topicMinMessages: config.EPISODE_TOPIC_MIN_MESSAGES,
    },
    (memories) =>
      publishEvents(
        deps.bus,
        TOPICS.memoriesExtracted,
        memories.map((m) => ({
          // One id per memory and version: a republished extraction is the same event.
          id: `${m.id}`,
          type: 'memory.episodic.extracted' as const,
          occurred_at: new Date().toISOString(),
          source: 'extractor',
          data: m,
        })),
      ),
    log,
    extractionMetricsOf(deps.metrics),
    async (episodeIds, conversationId) => {
      if (deps.fanout) await announceExtracted(deps.fanout, episodeIds, conversationId);
    },
  );
  const wiring: Wiring<typeof TOPICS, typeof CONSUMERS, 'extractor'> = {
    messagesStored: {
      groupId: consumerGroup('messagesStored', 'extractor', config.EXTRACTOR_GROUP_ID),
      retry: retryPolicyOf(config),
      partitionsConcurrently: config.KAFKA_TOPIC_PARTITIONS,
      maxBatchSize: 500,
      lingerMs: config.BACKGROUND_LINGER_MS,
      batchHandler: (events) => worker.advanceMessages(events.map((e) => e.data)),
      handler: (event) => worker.advanceMessages([event.data]),
    },
  };
  const subscriptions = await subscribeWiring(deps.bus, TOPICS, wiring);
  const hints = deps.fanout ? await closeOnHints(deps.fanout, worker, log) : undefined;
  deps.lifecycle.defer('extractor', async () => {
    await hints?.stop();
    await Promise.all(subscriptions.map((sub) => sub.stop()));
    await worker.stop();
  });
  // Registered after the worker, so it stops first: no sweep hands the worker work once it stops.
  startPeriodicJob(
    { name: 'episode sweep', everyMs: config.EXTRACTION_SWEEP_INTERVAL_MS, log, lifecycle: deps.lifecycle },
    () => worker.sweep(),
  );
  log.info(
    {
      rules: {
        messages: config.EPISODE_MAX_MESSAGES,
        tokens: config.EPISODE_MAX_TOKENS,
        silenceMs: config.EPISODE_SILENCE_MS,
      },
      topicModel: Boolean(model && config.EPISODE_TOPIC_DETECTION),
    },
    'extractor started',
  );
  return worker;
}

/**
 * A held write that closes an episode asks for it at once (EpisodeClosing): closed here and now
 * rather than after the consumer's linger. The consumer will look at the same conversation again;
 * closing takes the conversation's lock and reads the store, so the second look closes nothing twice.
 */
async function closeOnHints(fanout: Fanout, worker: EpisodeWorker, log: Logger): Promise<{ stop(): Promise<void> }> {
  const running = new Set<Promise<void>>();
  const unsubscribe = await listenForClosingHints(fanout, (conversationId) => {
    const run = worker
      .advance([conversationId])
      .catch((err: unknown) => log.warn({ err }, 'closing on a hint failed; the consumer closes it with its batch'))
      .finally(() => running.delete(run));
    running.add(run);
  });
  return {
    async stop() {
      await unsubscribe();
      await Promise.allSettled([...running]);
    },
  };
}
