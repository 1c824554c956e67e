import { summarizerEnv } from './config.js';
import { createBus } from '@memstream/bus';
import { createHttpServer } from '@memstream/http';
import { runProcess } from '@memstream/runtime';
import { allTopics } from '@memstream/schemas';
import { openStore } from '@memstream/store';
import { runSummarizer } from './start-summarizer.js';

// Consumers serve only health and metrics over HTTP, for probes and scrapers.
await runProcess('summarizer', summarizerEnv, process.env, async ({ config, log, lifecycle, metrics }) => {
  const store = await openStore(config, log);
  lifecycle.defer('store', () => store.close());
  const bus = createBus(config, log, metrics);
  lifecycle.defer('bus', () => bus.close());
  await bus.ensureTopics(allTopics());

  await runSummarizer(config, { bus, store, log, lifecycle, metrics });

  const http = createHttpServer({ log, lifecycle, bodyLimitBytes: config.HTTP_BODY_LIMIT_BYTES, metrics, readinessChecks: [() => store.ping()] });
  await http.listen({ port: config.PORT, host: config.HOST ?? '0.0.0.0' });
  lifecycle.defer('http', () => http.close());
});
