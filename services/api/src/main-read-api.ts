import { readApiEnv } from './config.js';
import { createBus } from '@memstream/bus';
import { createFanout, createRequestLedger, createResponseStreams } from '@memstream/fanout';
import { serveApi } from '@memstream/http';
import { startWriter, writeSettingsOf } from '@memstream/ingest';
import { runProcess } from '@memstream/runtime';
import { allTopics } from '@memstream/schemas';
import { openStore } from '@memstream/store';
import { createEmbedder } from '@memstream/embedding';
import { readApiDocs, readApiSettingsOf, registerReadApi } from './read-api.js';

await runProcess('read-api', readApiEnv, process.env, async (ctx) => {
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
  const ledger = await lifecycle.own(
    'request ledger',
    () => createRequestLedger(config.REDIS_URL, config.REQUEST_STATUS_TTL_SECONDS, log),
    (l) => l.close(),
  );
  // ARK's POST /messages is served here (one address for ARK), so the read API also produces.
  const bus = await lifecycle.own(
    'bus',
    () => createBus(config, log, metrics),
    (b) => b.close(),
  );
  await bus.ensureTopics(allTopics());
  // Queries are embedded here, with the model the indexer embeds documents with.
  const embedder = await lifecycle.own(
    'embedder',
    () => createEmbedder(config, log),
    (e) => e.close(),
  );
  const responses = createResponseStreams(config.RESPONSE_RESUMER, config.REDIS_URL, config.RESPONSE_RETENTION_S, log);
  if (responses) lifecycle.defer('response streams', () => responses.close());
  const writer = await lifecycle.own(
    'write path',
    () => startWriter({ bus, fanout, ledger, settings: writeSettingsOf(config), log }),
    (w) => w.stop(),
  );

  await serveApi(ctx, {
    openapi: readApiDocs,
    readinessChecks: [() => store.ping()],
    register: (app) =>
      registerReadApi(app, {
        store,
        ledger,
        fanout,
        write: writer.write,
        embedder,
        responses,
        ...readApiSettingsOf(config),
      }),
  });
});
