import { indexerEnv } from './config.js';
import { createBus } from '@memstream/bus';
import { createEmbedder } from '@memstream/embedding';
import { createHttpServer } from '@memstream/http';
import { runProcess } from '@memstream/runtime';
import { allTopics } from '@memstream/schemas';
import { openStore } from '@memstream/store';
import { runIndexer } from './start-indexer.js';

// Consumers serve only health (and metrics) over HTTP, for probes.
await runProcess('indexer', indexerEnv, process.env, async ({ config, log, lifecycle, metrics }) => {
  const store = await openStore(config, log);
  lifecycle.defer('store', () => store.close());
  const embedder = await createEmbedder(config, log);
  lifecycle.defer('embedder', () => embedder.close());
  const bus = createBus(config, log, metrics);
  lifecycle.defer('bus', () => bus.close());
  await bus.ensureTopics(allTopics());

  await runIndexer(config, { bus, store, embedder, log, lifecycle });

  const http = createHttpServer({ log, lifecycle, metrics, bodyLimitBytes: config.HTTP_BODY_LIMIT_BYTES, readinessChecks: [() => store.ping()] });
  await http.listen({ port: config.PORT, host: config.HOST ?? '0.0.0.0' });
  lifecycle.defer('http', () => http.close());
});
