import { extractorEnv } from './config.js';
import { createBus } from '@memstream/bus';
import { createHttpServer } from '@memstream/http';
import { runProcess } from '@memstream/runtime';
import { allTopics } from '@memstream/schemas';
import { openStore } from '@memstream/store';
import { runExtractor } from './start-extractor.js';

// Consumers serve only health (and later metrics) over HTTP, for probes.
await runProcess('extractor', extractorEnv, process.env, async ({ config, log, lifecycle, metrics }) => {
  const store = await openStore(config, log);
  lifecycle.defer('store', () => store.close());
  const bus = createBus(config, log, metrics);
  lifecycle.defer('bus', () => bus.close());
  await bus.ensureTopics(allTopics());

  await runExtractor(config, { bus, store, log, lifecycle, metrics });

  const http = createHttpServer({ log, lifecycle, metrics, bodyLimitBytes: config.HTTP_BODY_LIMIT_BYTES, readinessChecks: [() => store.ping()] });
  await http.listen({ port: config.PORT, host: config.HOST ?? '0.0.0.0' });
  lifecycle.defer('http', () => http.close());
});
