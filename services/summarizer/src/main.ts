import { summarizerEnv } from './config.js';
import { createBus } from '@memstream/bus';
import { serveProbes } from '@memstream/http';
import { runProcess } from '@memstream/runtime';
import { allTopics } from '@memstream/schemas';
import { openStore } from '@memstream/store';
import { runSummarizer } from './start-summarizer.js';

// Consumers serve only health and metrics over HTTP, for probes and scrapers.
await runProcess('summarizer', summarizerEnv, process.env, async (ctx) => {
  const { config, log, lifecycle, metrics } = ctx;
  const store = await lifecycle.own(
    'store',
    () => openStore(config, log),
    (s) => s.close(),
  );
  const bus = await lifecycle.own(
    'bus',
    () => createBus(config, log, metrics),
    (b) => b.close(),
  );
  await bus.ensureTopics(allTopics());

  await runSummarizer(config, { bus, store, log, lifecycle, metrics });
  await serveProbes(ctx, [() => store.ping()]);
});
