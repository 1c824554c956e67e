import { setupEnv } from './config.js';
import { createBus } from '@memstream/bus';
import { retryOnError } from '@memstream/retry';
import { runProcess } from '@memstream/runtime';
import { allTopics } from '@memstream/schemas';
import { openStore } from '@memstream/store';

// A broker that has just turned healthy can still refuse metadata for a topic it is creating
// (UNKNOWN_TOPIC_OR_PARTITION while leaders are elected); a one-shot job that gave up on that
// would hold every service back, so it tries again a few times before failing.
const TOPIC_RETRY = { attempts: 6, backoff: { initialDelayMs: 500, maxDelayMs: 8_000 } };

/**
 * The one-shot setup job of a deployment (`npm run start:setup`): creates every topic and its
 * dead-letter twin with the configured partition count and replication factor, checks the ones
 * that existed before (see reconcileTopics), applies the migrations, and exits. It runs
 * before the services so the topics exist with the planned partitions before any consumer joins
 * (a topic's partition count is fixed when it is created). Every service repeats both steps at
 * start-up, idempotently, so running this twice, or late, does no harm.
 */
await runProcess('setup', setupEnv, process.env, async ({ config, log, metrics }) => {
  const topics = allTopics();
  const bus = createBus(config, log, metrics);
  try {
    await retryOnError(() => bus.ensureTopics(topics), {
      ...TOPIC_RETRY,
      onRetry: ({ err, attempt, delayMs }) =>
        log.warn({ err, attempt, delayMs }, 'creating topics failed, trying again'),
    });
    // Topics made before setup (a producer's first write, with the broker's defaults) or since
    // changed: what is safe to fix is fixed, and every finding is said.
    for (const f of (await bus.reconcileTopics?.(topics)) ?? []) {
      if (f.fixed) log.info(f, 'topic setting fixed');
      else log.warn(f, 'topic setting left as it is');
    }
  } finally {
    await bus.close();
  }
  log.info(
    { topics: topics.length, partitions: config.KAFKA_TOPIC_PARTITIONS, prefix: config.KAFKA_TOPIC_PREFIX },
    'topics ready',
  );

  // openStore applies the migrations (under an advisory lock) before it returns the store
  const store = await openStore(config, log);
  await store.close();
  log.info('migrations applied');
});
