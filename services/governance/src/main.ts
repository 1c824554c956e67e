import { governanceEnv } from './config.js';
import { createBus } from '@memstream/bus';
import { createResponseStreams, DEFAULT_RESPONSE_LIMITS } from '@memstream/fanout';
import { serveProbes } from '@memstream/http';
import { runProcess } from '@memstream/runtime';
import { allTopics } from '@memstream/schemas';
import { openStore } from '@memstream/store';
import { runGovernance } from './run-governance.js';

// The governance worker serves only health and metrics over HTTP, for probes and scrapers.
await runProcess('governance', governanceEnv, process.env, async (ctx) => {
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
  // Only to discard what an erasure, an eviction or retention removed: the API processes record and read the streams.
  const responses = await lifecycle.own(
    'response streams',
    () => createResponseStreams('auto', config.REDIS_URL, 1, DEFAULT_RESPONSE_LIMITS, log),
    async (r) => r?.close(),
  );
  const discardStreams = async (ids: readonly string[]) => void (await responses?.discard(ids));
  await runGovernance(config, { bus, store, log, lifecycle, metrics, discardStreams });
  await serveProbes(ctx, [() => store.ping()]);
});
