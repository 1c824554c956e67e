import { apiEnv } from './config.js';
import { openApiDeps } from './open-api-deps.js';
import { createBus } from '@memstream/bus';
import { runProcess } from '@memstream/runtime';
import { openReadStore, ReplicaReads } from '@memstream/store';
import { createEmbedder } from '@memstream/embedding';
import { replicaMetrics } from './replica-metrics.js';
import { runApi } from './run-api.js';

/** The read API: every family's reads, from the store, the live fan-out and (dead letters) Kafka. It never publishes. */
await runProcess('read-api', apiEnv, process.env, async (ctx) => {
  const { config, log, lifecycle } = ctx;
  const replicas = config.DATABASE_REPLICA_URLS.length > 0 ? replicaMetrics(ctx.metrics) : undefined;
  const store = await lifecycle.own(
    'store',
    () => openReadStore(config, log, replicas?.onRead),
    (s) => s.close(),
  );
  if (replicas && store instanceof ReplicaReads) replicas.watch(() => store.lag());
  const api = await openApiDeps(ctx, store);
  // Queries are embedded here, with the model the indexer embeds documents with.
  const embedder = await lifecycle.own(
    'embedder',
    () => createEmbedder(config, log),
    (e) => e.close(),
  );

  // Only for reading the dead-letter topics (the admin route): it never publishes or subscribes.
  const transport =
    config.KAFKA_BROKERS.length === 0
      ? undefined
      : await lifecycle.own(
          'bus',
          async () => createBus(config, log, ctx.metrics),
          (b) => b.close(),
        );

  await runApi(ctx, 'read', { ...api, embedder, transport });
});
