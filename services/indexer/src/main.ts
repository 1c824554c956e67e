import { indexerEnv } from './config.js';
import { createBus } from '@memstream/bus';
import { createEmbedder } from '@memstream/embedding';
import { serveProbes } from '@memstream/http';
import { runProcess } from '@memstream/runtime';
import { allTopics } from '@memstream/schemas';
import { openStore } from '@memstream/store';
import { runIndexer } from './start-indexer.js';

// Consumers serve only health and metrics over HTTP, for probes and scrapers.
await runProcess('indexer', indexerEnv, process.env, async (ctx) => {
  const { config, log, lifecycle, metrics } = ctx;
  const store = await lifecycle.own(
    'store',
    () => openStore(config, log),
    (s) => s.close(),
  );
  const embedder = await lifecycle.own(
    'embedder',
    () => createEmbedder(config, log),
    (e) => e.close(),
  );
  const bus = await lifecycle.own(
    'bus',
    () => createBus(config, log, metrics),
    (b) => b.close(),
  );
  await bus.ensureTopics(allTopics());

  await runIndexer(config, { bus, store, embedder, log, lifecycle, metrics });
  await serveProbes(ctx, [() => store.ping()]);
});
