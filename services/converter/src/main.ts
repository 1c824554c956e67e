import { converterEnv } from './config.js';
import { createBus } from '@memstream/bus';
import { createFanout } from '@memstream/fanout';
import { serveProbes } from '@memstream/http';
import { runProcess } from '@memstream/runtime';
import { allTopics } from '@memstream/schemas';
import { openStore } from '@memstream/store';
import { runConverter } from './start-converter.js';

// Consumers serve only health and metrics over HTTP, for probes and scrapers.
await runProcess('converter', converterEnv, process.env, async (ctx) => {
  const { config, log, lifecycle, metrics } = ctx;
  const store = await lifecycle.own(
    'store',
    () => openStore(config, log),
    (s) => s.close(),
  );
  const fanout = await lifecycle.own(
    'fanout',
    () => createFanout(config.REDIS_URL, log),
    (f) => f.close(),
  );
  const bus = await lifecycle.own(
    'bus',
    () => createBus(config, log, metrics),
    (b) => b.close(),
  );
  await bus.ensureTopics(allTopics());

  await runConverter(config, { bus, store, fanout, log, lifecycle });
  await serveProbes(ctx, [() => store.ping()]);
});
